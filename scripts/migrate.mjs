// `npm run db:migrate [-- --remote]`: applies migrations/ to every D1 database wrangler.toml binds
// (the global `DB` and every `SHARD_<n>`, docs/decisions/shards.md 5), locally by default or to
// Cloudflare with --remote. Stops at the first failure and says which database.
// Locally every database is migrated in this one process (scripts/lib/local-d1.mjs: the state
// `wrangler dev` reads, recorded in d1_migrations as wrangler records it); --remote runs
// `wrangler d1 migrations apply <binding> --remote` per database. --persist-to <dir> (local only)
// migrates a state directory other than .wrangler/state.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { applyMigrations, d1Databases, openLocalD1, root } from "./lib/local-d1.mjs";

/** The `binding` of every `[[d1_databases]]` table of wrangler.toml, in file order. */
export const d1Bindings = (toml) => d1Databases(toml).map((d) => d.binding);

/** Applies the migrations to one database with wrangler (one CLI run); returns the process result (never throws). */
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

/**
 * The local databases, all in one process (an already opened `local` from openLocalD1 is reused and
 * left open), side by side: each database's migrations in order, one transaction each, as wrangler
 * applies them. Throws naming every database and migration that failed; the others are migrated.
 * Returns [{ binding, applied: [names] }].
 */
export async function migrateAllLocal({ persistTo, local } = {}) {
  const opened = local ?? (await openLocalD1({ persistTo }));
  try {
    const settled = await Promise.allSettled(opened.databases.map((database) => applyMigrations(opened, database)));
    const failed = settled.filter((r) => r.status === "rejected").map((r) => r.reason?.message ?? String(r.reason));
    if (failed.length > 0) throw new Error(failed.join("; "));
    return opened.databases.map((database, i) => ({ binding: database.binding, applied: settled[i].value }));
  } finally {
    if (!local) await opened.dispose();
  }
}

/** Every bound database, one after another; exits non-zero naming the first that failed. */
export async function migrateAll(options = {}) {
  if (!options.remote) {
    try {
      for (const { binding, applied } of await migrateAllLocal(options)) {
        console.log(`db:migrate: ${binding} ${applied.length === 0 ? "up to date" : `migrated (${applied.length}: ${applied.at(0)}${applied.length > 1 ? ` .. ${applied.at(-1)}` : ""})`} (local)`);
      }
    } catch (err) {
      console.error(`db:migrate: ${err.message} (every other database is migrated; run it again once fixed)`);
      process.exit(1);
    }
    return d1Bindings();
  }
  const bindings = d1Bindings();
  for (const binding of bindings) {
    const res = migrate(binding, options);
    const out = `${res.stdout ?? ""}\n${res.stderr ?? ""}`;
    if (res.status !== 0) {
      console.error(`db:migrate: ${binding} failed (exit ${res.status}); the databases before it are migrated, the ones after it are not.`);
      console.error(out.trim());
      process.exit(1);
    }
    console.log(`db:migrate: ${binding} ${/No migrations to apply/i.test(out) ? "up to date" : "migrated"} (remote)`);
  }
  return bindings;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--persist-to");
  const persistTo = at >= 0 ? args[at + 1] : undefined;
  if (args.includes("--remote") && persistTo) {
    console.error("db:migrate: --persist-to is for the local databases only");
    process.exit(2);
  }
  await migrateAll({ remote: args.includes("--remote"), persistTo });
}
