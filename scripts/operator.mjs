#!/usr/bin/env node
// Operator CLI: a thin, dependency-free client for the operator API ({base_url}/api/v2/operator/*).
//   npm run operator -- help
// URL:   --url, else $OPERATOR_URL, else http://localhost:8787
// Token: --token, else $OPERATOR_TOKEN, else OPERATOR_TOKEN from ./.dev.vars (local dev)
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const API_BASE = "/api/v2";
const DEFAULT_URL = "http://localhost:8787";
/** The scopes the service knows, read from its own list (src/lib/scopes.ts), so the help never lags behind it. */
const ALL_SCOPES = (() => {
  const source = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "src", "lib", "scopes.ts"), "utf8");
  const list = /export const SCOPES = \[([\s\S]*?)\] as const/.exec(source)?.[1] ?? "";
  return [...list.replace(/\/\*[\s\S]*?\*\//g, "").matchAll(/"([a-z_]+:[a-z_]+)"/g)].map((m) => m[1]);
})();

const HELP = `Usage: npm run operator -- <command> [args] [--url URL] [--token TOKEN]

Organizations
  org:create --name NAME
  org:update <org_id> [--name NAME] [--stripe-account acct_...|none] [--fee-bps N]
             [--frame-ancestors https://a.example,https://*.b.example|none]

API keys (the raw key is printed once, by create and rotate)
  key:create <org_id> --scopes a,b|all [--rpm N] [--name NAME]
  key:rotate <key_id>
  key:update <key_id> [--scopes a,b|all] [--rpm N] [--active true|false]
  key:show <key_id>

Users and customers
  user:create <org_id> --email EMAIL --name NAME --role admin|custodian|member
  token:create <user_id> [--org ORG_ID] [--ttl SECONDS]
  customer:create <org_id> --name NAME [--email EMAIL] [--contact NAME]

Shards (where organizations' records are stored)
  shards list                         every shard: state, organizations placed, envelopes stored
  shards open <n> | shards close <n>  open a shard (new organizations may be placed or moved there; the first
                                      call registers a newly bound SHARD_<n>) or close it (its data stays read)
  orgs list                           every organization with its current shard
  orgs show <org_id>                  an organization's settings and current shard
  orgs move <org_id> --to N           new envelopes of the organization go to shard N (an open shard)
  orgs move-all --to N                every organization not yet on shard N is moved there

Billing
  usage <org_id> [--month YYYY-MM]   the month's usage lines (KBA verifications, ...) and total; default this month (UTC)

Bulk send
  bulk-progress <batch_id> [--interval SECONDS]   a live progress bar with the counts, until the batch ends (default every 2 s)

  help

Scopes: ${ALL_SCOPES.join(", ")}

Connection
  --url URL       service origin; else $OPERATOR_URL; else ${DEFAULT_URL}
  --token TOKEN   operator token; else $OPERATOR_TOKEN; else OPERATOR_TOKEN from ./.dev.vars

Examples
  npm run operator -- org:create --name "Acme Auto Finance"
  npm run operator -- key:create org_... --scopes all --rpm 120 --name "Dealer portal"
  npm run operator -- org:create --name "Acme" --url https://api.example.com --token "$OPERATOR_TOKEN"
  npm run operator -- shards open 2 && npm run operator -- shards close 1 && npm run operator -- orgs move-all --to 2
`;

class UsageError extends Error {}

// ---------------------------------------------------------------------------------------------
// argument parsing: positionals and --flag value / --flag=value

function parseArgs(argv) {
  const positionals = [];
  const flags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h" || arg === "--help") {
      flags.help = "true";
      continue;
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      let value;
      if (eq !== -1) value = arg.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) value = argv[++i];
      else throw new UsageError(`--${name} needs a value`);
      flags[name] = value;
    } else {
      positionals.push(arg);
    }
  }
  return { positionals, flags };
}

function int(flag, value) {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--${flag} must be an integer, got "${value}"`);
  return Number(value);
}

function bool(flag, value) {
  if (value === undefined) return undefined;
  if (value === "true") return true;
  if (value === "false") return false;
  throw new UsageError(`--${flag} must be true or false, got "${value}"`);
}

function scopes(value) {
  if (value === undefined) return undefined;
  if (value === "all") return [...ALL_SCOPES];
  const list = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0) throw new UsageError("--scopes needs at least one scope");
  return list; // the API validates the names and reports any it does not know
}

function nullable(value) {
  if (value === undefined) return undefined;
  return value === "none" || value === "null" || value === "" ? null : value;
}

/** A comma-separated origin list; "none" clears it. The API checks and normalizes each origin. */
function origins(value) {
  if (value === undefined) return undefined;
  if (nullable(value) === null) return null;
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Drops undefined fields so PATCH bodies carry only what was given. */
const compact = (obj) => Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));

// ---------------------------------------------------------------------------------------------
// commands: each declares its positional argument, its flags, and builds the request

const COMMANDS = {
  "org:create": {
    flags: ["name"],
    required: ["name"],
    build: (_, f) => ["POST", "/operator/orgs", { name: f.name }],
  },
  "org:update": {
    arg: "org_id",
    flags: ["name", "stripe-account", "fee-bps", "frame-ancestors"],
    atLeastOne: true,
    build: (id, f) => [
      "PATCH",
      `/operator/orgs/${enc(id)}`,
      compact({
        name: f.name,
        stripe_account_id: nullable(f["stripe-account"]),
        platform_fee_bps: int("fee-bps", f["fee-bps"]),
        embed_frame_ancestors: origins(f["frame-ancestors"]),
      }),
    ],
  },
  "key:create": {
    arg: "org_id",
    flags: ["scopes", "rpm", "name"],
    required: ["scopes"],
    build: (id, f) => [
      "POST",
      `/operator/orgs/${enc(id)}/api-keys`,
      compact({ scopes: scopes(f.scopes), rate_limit_rpm: int("rpm", f.rpm), name: f.name }),
    ],
  },
  "key:rotate": {
    arg: "key_id",
    flags: [],
    build: (id) => ["POST", `/operator/api-keys/${enc(id)}/rotate`, {}],
  },
  "key:update": {
    arg: "key_id",
    flags: ["scopes", "rpm", "active"],
    atLeastOne: true,
    build: (id, f) => [
      "PATCH",
      `/operator/api-keys/${enc(id)}`,
      compact({ scopes: scopes(f.scopes), rate_limit_rpm: int("rpm", f.rpm), active: bool("active", f.active) }),
    ],
  },
  "key:show": {
    arg: "key_id",
    flags: [],
    build: (id) => ["GET", `/operator/api-keys/${enc(id)}`, undefined],
  },
  "user:create": {
    arg: "org_id",
    flags: ["email", "name", "role"],
    required: ["email", "name", "role"],
    build: (id, f) => ["POST", `/operator/orgs/${enc(id)}/users`, { email: f.email, name: f.name, role: f.role }],
  },
  "token:create": {
    arg: "user_id",
    flags: ["org", "ttl"],
    build: (id, f) => ["POST", `/operator/users/${enc(id)}/access-tokens`, compact({ org_id: f.org, ttl_seconds: int("ttl", f.ttl) })],
  },
  "customer:create": {
    arg: "org_id",
    flags: ["name", "email", "contact"],
    required: ["name"],
    build: (id, f) => [
      "POST",
      `/operator/orgs/${enc(id)}/customers`,
      compact({ name: f.name, email: f.email, primary_contact_name: f.contact }),
    ],
  },
  usage: {
    arg: "org_id",
    flags: ["month"],
    build: (id, f) => {
      if (f.month !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(f.month)) throw new UsageError(`--month must be YYYY-MM, got "${f.month}"`);
      return ["GET", `/operator/orgs/${enc(id)}/usage${f.month ? `?month=${enc(f.month)}` : ""}`, undefined];
    },
  },
};

COMMANDS["bulk-progress"] = {
  arg: "batch_id",
  flags: ["interval"],
  watch: true,
  build: (id) => ["GET", `/operator/bulk-send/${enc(id)}?limit=1`, undefined],
};

/** A shard number as the API takes it (1 to 9999). */
function shardNumber(what, value) {
  if (value === undefined || !/^[1-9]\d{0,3}$/.test(value)) throw new UsageError(`${what} must be a shard number (1 to 9999), got "${value ?? ""}"`);
  return Number(value);
}

const shardState = (state) => ({
  arg: "n",
  flags: [],
  build: (n) => ["PATCH", `/operator/shards/${shardNumber("<n>", n)}`, { state }],
});

COMMANDS["shards list"] = { flags: [], build: () => ["GET", "/operator/shards", undefined] };
COMMANDS["shards open"] = shardState("open");
COMMANDS["shards close"] = shardState("closed");
COMMANDS["orgs show"] = { arg: "org_id", flags: [], build: (id) => ["GET", `/operator/orgs/${enc(id)}`, undefined] };
COMMANDS["orgs list"] = { flags: [], run: (_, __, api) => allOrgs(api).then((orgs) => ({ ok: true, json: { data: orgs } })) };
COMMANDS["orgs move"] = {
  arg: "org_id",
  flags: ["to"],
  required: ["to"],
  build: (id, f) => ["PATCH", `/operator/orgs/${enc(id)}`, { current_shard_id: shardNumber("--to", f.to) }],
};
COMMANDS["orgs move-all"] = { flags: ["to"], required: ["to"], run: (_, f, api) => moveAll(api, shardNumber("--to", f.to)) };
/** Words that take a second word as their sub-command (`shards list`, `orgs move`). */
const GROUPS = new Set(["shards", "orgs"]);

/** Every organization, page by page (the list is keyset-paged on `after`). */
async function allOrgs(api) {
  const orgs = [];
  for (let after = null; ; ) {
    const res = await api("GET", `/operator/orgs?limit=500${after ? `&after=${enc(after)}` : ""}`);
    if (!res.ok) throw new Error(`listing organizations: HTTP ${res.status}: ${res.json?.error ?? res.text.slice(0, 200)}`);
    orgs.push(...res.json.data);
    after = res.json.meta.next_after;
    if (!after) return orgs;
  }
}

/**
 * Moves every organization not on `to` there, one PATCH each, reporting each move on stderr. Safe to run
 * again after a failure: organizations already moved are skipped. Exit 1 if any move failed.
 */
async function moveAll(api, to) {
  const orgs = (await allOrgs(api)).filter((o) => o.shard_id !== to);
  const failed = [];
  let moved = 0;
  for (const org of orgs) {
    const res = await api("PATCH", `/operator/orgs/${enc(org.org_id)}`, { current_shard_id: to });
    if (res.ok) {
      moved += 1;
      process.stderr.write(`moved ${org.org_id} (${org.name}) from shard ${org.shard_id} to ${to}\n`);
    } else {
      failed.push({ org_id: org.org_id, status: res.status, error: res.json?.error ?? res.text.slice(0, 200) });
      process.stderr.write(`failed ${org.org_id}: HTTP ${res.status}: ${res.json?.error ?? ""}\n`);
      // an unusable target fails every move the same way: stop at the first such answer
      if (res.status === 422 || res.status === 401) break;
    }
  }
  return { ok: failed.length === 0, status: failed.length === 0 ? 200 : 1, json: { data: { to_shard_id: to, moved, failed } }, text: "" };
}

const enc = (s) => encodeURIComponent(s);

const BAR_WIDTH = 40;
const TERMINAL = ["completed", "cancelled", "failed"];

/** One line: [####----] 42% sent 420 failed 1 skipped 3 cancelled 0 running 4 pending 572 / 1000 (status) */
function progressLine(data) {
  const { batch, counts } = data;
  const total = batch.total_count || 1;
  const done = counts.sent + counts.failed + counts.skipped + counts.cancelled;
  const filled = Math.round((done / total) * BAR_WIDTH);
  const bar = `${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}`;
  const pct = String(Math.floor((done / total) * 100)).padStart(3);
  return `[${bar}] ${pct}%  sent ${counts.sent}  failed ${counts.failed}  skipped ${counts.skipped}  cancelled ${counts.cancelled}  running ${counts.running}  pending ${counts.pending}  / ${batch.total_count}  (${batch.status})`;
}

/** Polls the batch's progress until it ends, redrawing one line on a terminal (a line per poll otherwise). */
async function watchProgress(url, token, intervalSeconds) {
  const tty = process.stdout.isTTY;
  for (;;) {
    const res = await call("GET", url, token);
    if (!res.ok) return res;
    const line = progressLine(res.json.data);
    process.stdout.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
    if (TERMINAL.includes(res.json.data.batch.status)) {
      if (tty) process.stdout.write("\n");
      return res;
    }
    await new Promise((r) => setTimeout(r, intervalSeconds * 1000));
  }
}

// ---------------------------------------------------------------------------------------------
// connection

function devVarsToken() {
  const file = join(process.cwd(), ".dev.vars");
  if (!existsSync(file)) return undefined;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^\s*OPERATOR_TOKEN\s*=\s*(.*?)\s*$/.exec(line);
    if (m) return m[1].replace(/^(["'])(.*)\1$/, "$2") || undefined;
  }
  return undefined;
}

function apiUrl(base, path) {
  let origin = base.replace(/\/+$/, "");
  if (!/^https?:\/\//i.test(origin)) throw new UsageError(`--url must start with http:// or https://, got "${base}"`);
  if (origin.endsWith(API_BASE)) origin = origin.slice(0, -API_BASE.length);
  return `${origin}${API_BASE}${path}`;
}

async function call(method, url, token, body) {
  const headers = { Authorization: `Bearer ${token}`, Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    const cause = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(err);
    throw new Error(`could not reach ${url} (${cause}). Is the service running (npm run dev) and --url right?`);
  }
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.status, ok: res.ok, json, text };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const { positionals, flags } = parseArgs(process.argv.slice(2));
  let [name, ...rest] = positionals;
  if (GROUPS.has(name) && rest.length > 0) name = `${name} ${rest.shift()}`;
  if (!name || name === "help" || flags.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const cmd = COMMANDS[name];
  if (!cmd) throw new UsageError(`unknown command "${name}"`);

  const { url: urlFlag, token: tokenFlag, ...own } = flags;
  for (const f of Object.keys(own)) {
    if (!cmd.flags.includes(f)) throw new UsageError(`${name} does not take --${f}`);
  }
  for (const f of cmd.required ?? []) {
    if (own[f] === undefined) throw new UsageError(`${name} needs --${f}`);
  }
  if (cmd.atLeastOne && Object.keys(own).length === 0) {
    throw new UsageError(`${name} needs at least one of ${cmd.flags.map((f) => `--${f}`).join(", ")}`);
  }
  const expected = cmd.arg ? 1 : 0;
  if (rest.length < expected) throw new UsageError(`${name} needs <${cmd.arg}>`);
  if (rest.length > expected) throw new UsageError(`unexpected argument "${rest[expected]}"`);

  const [method, path, body] = cmd.build ? cmd.build(rest[0], own) : [];
  const base = urlFlag ?? process.env.OPERATOR_URL ?? DEFAULT_URL;
  const fromDevVars = tokenFlag === undefined && !process.env.OPERATOR_TOKEN;
  const token = tokenFlag ?? process.env.OPERATOR_TOKEN ?? devVarsToken();
  if (!token) {
    throw new UsageError("no operator token: pass --token, set OPERATOR_TOKEN, or run from a checkout with a .dev.vars (npm run dev creates it)");
  }

  const api = (m, p, b) => call(m, apiUrl(base, p), token, b);
  const res = cmd.run
    ? await cmd.run(rest[0], own, api)
    : cmd.watch
      ? await watchProgress(apiUrl(base, path), token, own.interval === undefined ? 2 : Math.max(0.2, Number(own.interval) || 2))
      : await call(method, apiUrl(base, path), token, body);
  if (res.ok && cmd.watch) return res.json.data.batch.status === "failed" ? 1 : 0;
  if (res.ok) {
    process.stdout.write(`${JSON.stringify(res.json ?? res.text, null, 2)}\n`);
    return 0;
  }
  if (cmd.run) {
    process.stdout.write(`${JSON.stringify(res.json, null, 2)}\n`);
    return 1;
  }
  const message = res.json?.error ?? (res.text.trim().slice(0, 500) || "no response body");
  process.stderr.write(`error: HTTP ${res.status}: ${message}\n`);
  if (res.json?.details !== undefined) process.stderr.write(`${JSON.stringify(res.json.details, null, 2)}\n`);
  if (res.status === 401 && fromDevVars) {
    process.stderr.write("hint: the token came from ./.dev.vars (local dev); for a deployed service pass --token or set OPERATOR_TOKEN\n");
  }
  return 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\nRun \`npm run operator -- help\` for usage.\n`);
      process.exit(2);
    }
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  },
);
