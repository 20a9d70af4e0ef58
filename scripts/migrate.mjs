// `npm run db:migrate [-- --remote]`: applies migrations/ to every D1 database wrangler.toml binds
// (the global `DB` and every `SHARD_<n>`, docs/decisions/shards.md 5), locally by default or to
// Cloudflare with --remote. Stops at the first failure and says which database.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The `binding` of every `[[d1_databases]]` table of wrangler.toml, in file order. */
export function d1Bindings(toml = readFileSync(join(root, "wrangler.toml"), "utf8")) {
  const out = [];
  for (const block of toml.split(/^\[\[d1_databases\]\]\s*$/m).slice(1)) {
    const body = block.split(/^\[/m)[0];
    const m = /^\s*binding\s*=\s*"([^"]+)"/m.exec(body);
    if (m) out.push(m[1]);
  }
  return out;
}

/** Applies the migrations to one database; returns the process result (never throws). */
export function migrate(binding, { remote = false, persistTo } = {}) {
  const bin = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
  if (!existsSync(bin)) return { status: 1, stdout: "", stderr: "wrangler is not installed; run `npm install` first." };
  const args = [bin, "d1", "migrations", "apply", binding, remote ? "--remote" : "--local", ...(persistTo ? ["--persist-to", persistTo] : [])];
  return spawnSync(process.execPath, args, {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1", FORCE_COLOR: "0" },
  });
}

/** Every bound database, one after another; exits non-zero naming the first that failed. */
export function migrateAll(options = {}) {
  const bindings = d1Bindings();
  for (const binding of bindings) {
    const res = migrate(binding, options);
    const out = `${res.stdout ?? ""}\n${res.stderr ?? ""}`;
    if (res.status !== 0) {
      console.error(`db:migrate: ${binding} failed (exit ${res.status}); the databases before it are migrated, the ones after it are not.`);
      console.error(out.trim());
      process.exit(1);
    }
    console.log(`db:migrate: ${binding} ${/No migrations to apply/i.test(out) ? "up to date" : "migrated"}${options.remote ? " (remote)" : " (local)"}`);
  }
  return bindings;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  migrateAll({ remote: process.argv.includes("--remote") });
}
