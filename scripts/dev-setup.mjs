// Runs before `npm run dev` (the "predev" script): makes a fresh clone usable with no manual steps.
//   1. .dev.vars from .dev.vars.example, every `change-me-...` placeholder replaced by a random value
//   2. local D1 migrations applied to every database (the global DB and each shard: scripts/migrate.mjs)
//   3. a demo organization (on shard 1), a second one (on shard 2), admin user and all-scopes API key seeded (idempotently)
//   4. the demo credentials and ready-to-run curl lines printed
// The raw API key cannot be read back from D1 (only its SHA-256 is stored), so it is kept in the
// git-ignored .dev-demo.json and reused on later runs while its hash is still in the local database.
// Everything here is local: nothing touches Cloudflare's network.
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateSealCertificate, pemForDotenv } from "./lib/seal-cert.mjs";
import { devEvidenceVars, isGeneratedDevSeal } from "./lib/dev-evidence.mjs";
// ids and the demo API key from the Worker's own generator (src/lib/ids.ts re-exports the same module)
import { API_KEY_PATTERN, newRawApiKey, prefixedId } from "../src/lib/random-ids.mjs";
import { d1Bindings, migrateAll } from "./migrate.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const DEV_VARS = join(root, ".dev.vars");
const DEV_VARS_EXAMPLE = join(root, ".dev.vars.example");
const DEMO_FILE = join(root, ".dev-demo.json");

const BASE_URL = "http://localhost:8787";
const DEMO_ORG_NAME = "Demo Lender";
// a second organization on the second shard, so a local run crosses shards (transfers between the two)
const SECOND_ORG_NAME = "Demo Dealer";
const DEMO_USER_EMAIL = "demo-admin@example.com";
const DEMO_USER_NAME = "Demo Admin";
const DEMO_KEY_NAME = "Demo key (npm run dev)";
const DEMO_SCOPES = ["envelopes:read", "envelopes:write", "vault:read", "vault:write", "vault:control", "compliance:read", "esign:write", "webhooks:write"];
const DEMO_RPM = 60;
// Variables whose local value differs from the example's production-safe default. Applied only when
// the variable is first written to .dev.vars, so a developer's own choice is kept.
const LOCAL_DEV_VALUES = { SERVICE_ENV: "development", DEV_PAGES: "true", KBA_PROVIDER: "sandbox" };

// ---------------------------------------------------------------------------------------------
// helpers

const sha256Hex = (s) => createHash("sha256").update(s, "utf8").digest("hex");
const sql = (v) => (v === null || v === undefined ? "NULL" : `'${String(v).replaceAll("'", "''")}'`);

function fail(message, detail) {
  console.error(`\ndev-setup: ${message}`);
  if (detail) console.error(detail.trim());
  process.exit(1);
}

/** Runs the project's own wrangler (node_modules), non-interactively, without telemetry. */
function wrangler(args) {
  const bin = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
  if (!existsSync(bin)) fail("wrangler is not installed; run `npm install` first.");
  const res = spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  if (res.error) fail(`could not run wrangler ${args.join(" ")}`, String(res.error));
  if (res.status !== 0) {
    fail(`\`wrangler ${args.join(" ")}\` failed (exit ${res.status})`, `${res.stdout ?? ""}\n${res.stderr ?? ""}`);
  }
  return res;
}

/** SELECT against a local D1 database (default the global DB); returns the rows of the last statement. */
function query(statement, binding = "DB") {
  const res = wrangler(["d1", "execute", binding, "--local", "--json", "--command", statement]);
  let parsed;
  try {
    parsed = JSON.parse(res.stdout);
  } catch {
    fail("could not parse `wrangler d1 execute --json` output", res.stdout);
  }
  const results = Array.isArray(parsed) ? parsed : [parsed];
  return results.at(-1)?.results ?? [];
}

/** Runs several SQL statements against a local D1 database (default the global DB) from a temporary file. */
function executeFile(statements, binding = "DB") {
  const dir = mkdtempSync(join(tmpdir(), "esign-vault-seed-"));
  const file = join(dir, "seed.sql");
  try {
    writeFileSync(file, statements.map((s) => `${s.trim()};`).join("\n") + "\n");
    wrangler(["d1", "execute", binding, "--local", "--file", file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// 1. .dev.vars

function ensureDevVars() {
  if (!existsSync(DEV_VARS_EXAMPLE)) fail(".dev.vars.example is missing.");
  const example = readFileSync(DEV_VARS_EXAMPLE, "utf8");
  const fill = (line) => {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (m && m[1] in LOCAL_DEV_VALUES) return `${m[1]}=${LOCAL_DEV_VALUES[m[1]]}`;
    if (!m || !m[2].trim().startsWith("change-me")) return line;
    return `${m[1]}=${randomBytes(32).toString("hex")}`;
  };

  if (!existsSync(DEV_VARS)) {
    const body = example.split("\n").map(fill).join("\n");
    writeFileSync(DEV_VARS, body, { mode: 0o600 });
    console.log("dev-setup: created .dev.vars with fresh random secrets");
    return;
  }

  // Keep the developer's file; add any variable the example gained since it was created.
  const current = readFileSync(DEV_VARS, "utf8");
  const names = (text) =>
    new Set(
      text
        .split("\n")
        .map((l) => /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(l)?.[1])
        .filter(Boolean),
    );
  const have = names(current);
  const missing = example
    .split("\n")
    .filter((l) => {
      const name = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(l)?.[1];
      return name && !have.has(name);
    })
    .map(fill);
  if (missing.length > 0) {
    const sep = current.endsWith("\n") || current === "" ? "" : "\n";
    writeFileSync(DEV_VARS, `${current}${sep}${missing.join("\n")}\n`);
    console.log(`dev-setup: added to .dev.vars: ${missing.map((l) => l.split("=")[0]).join(", ")}`);
  } else {
    console.log("dev-setup: .dev.vars present (kept as is)");
  }
  const placeholders = [...current.matchAll(/^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*change-me/gm)].map((m) => m[1]);
  if (placeholders.length > 0) {
    console.warn(`dev-setup: warning: .dev.vars still has placeholder values for ${placeholders.join(", ")}`);
  }
}

/** A self-signed development seal in .dev.vars when it has none (completing a signing needs one). */
async function ensureDevSeal() {
  if (readDevVar("SEAL_PRIVATE_KEY") && readDevVar("SEAL_CERTIFICATE")) return;
  const seal = await generateSealCertificate();
  const values = { SEAL_PRIVATE_KEY: pemForDotenv(seal.privateKeyPem), SEAL_CERTIFICATE: pemForDotenv(seal.certificatePem) };
  const lines = readFileSync(DEV_VARS, "utf8").split("\n");
  for (const [name, value] of Object.entries(values)) {
    const i = lines.findIndex((l) => new RegExp(`^\\s*${name}\\s*=`).test(l));
    if (i >= 0) lines[i] = `${name}=${value}`;
    else lines.splice(lines.length - (lines.at(-1) === "" ? 1 : 0), 0, `${name}=${value}`);
  }
  writeFileSync(DEV_VARS, lines.join("\n"));
  console.log("dev-setup: wrote a self-signed development seal certificate to .dev.vars (SEAL_PRIVATE_KEY, SEAL_CERTIFICATE)");
}

/**
 * PAdES B-LTA locally (DESIGN.md 11): with `openssl` on the PATH, a throwaway CA's seal (naming the dev
 * OCSP responder) and SEAL_TSA_URL (the dev TSA) go into .dev.vars; `npm run dev` (scripts/dev.mjs)
 * starts OpenSSL's TSA and OCSP responder beside wrangler dev. A seal of the developer's own is kept.
 * Without openssl: the self-signed seal stays and local seals are B-B.
 */
function ensureDevEvidence() {
  if (!isGeneratedDevSeal(readDevVar("SEAL_CERTIFICATE"))) {
    console.log("dev-setup: .dev.vars has a seal of your own: kept (evidence levels as its certificate and SEAL_TSA_URL allow)");
    return;
  }
  const evidence = devEvidenceVars(root);
  if (!evidence) {
    console.log("dev-setup: openssl not found: local seals stay PAdES B-B (install openssl for B-LTA: docs/evidence.md)");
    return;
  }
  const values = {
    SEAL_PRIVATE_KEY: pemForDotenv(evidence.vars.SEAL_PRIVATE_KEY),
    SEAL_CERTIFICATE: pemForDotenv(evidence.vars.SEAL_CERTIFICATE),
    ...(readDevVar("SEAL_TSA_URL") ? {} : { SEAL_TSA_URL: evidence.vars.SEAL_TSA_URL }),
  };
  const lines = readFileSync(DEV_VARS, "utf8").split("\n");
  let changed = false;
  for (const [name, value] of Object.entries(values)) {
    const i = lines.findIndex((l) => new RegExp(`^\\s*${name}\\s*=`).test(l));
    if (i >= 0 && lines[i] === `${name}=${value}`) continue;
    changed = true;
    if (i >= 0) lines[i] = `${name}=${value}`;
    else lines.splice(lines.length - (lines.at(-1) === "" ? 1 : 0), 0, `${name}=${value}`);
  }
  if (changed) writeFileSync(DEV_VARS, lines.join("\n"));
  console.log(
    `dev-setup: evidence levels: ${evidence.created ? "made a throwaway OpenSSL CA (.wrangler/dev-pki); " : ""}` +
      `${changed ? "wrote its seal and SEAL_TSA_URL to .dev.vars; " : ""}npm run dev starts OpenSSL's TSA and OCSP responder: local seals reach PAdES B-LTA`,
  );
}

function readDevVar(name) {
  if (!existsSync(DEV_VARS)) return undefined;
  for (const line of readFileSync(DEV_VARS, "utf8").split("\n")) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (m && m[1] === name) return m[2].replace(/^(["'])(.*)\1$/, "$2");
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// 2. migrations

function applyMigrations() {
  if (!existsSync(join(root, "node_modules", "wrangler", "bin", "wrangler.js"))) fail("wrangler is not installed; run `npm install` first.");
  migrateAll();
}

/** The shard numbers wrangler.toml binds (SHARD_<n>), ascending. */
const boundShards = () =>
  d1Bindings()
    .map((b) => /^SHARD_([1-9][0-9]*)$/.exec(b)?.[1])
    .filter(Boolean)
    .map(Number)
    .sort((a, b) => a - b);

/**
 * An organization placed on a shard, as POST /operator/orgs places one: the global row naming its current
 * shard and its org_shards entry, then its anchor row on the shard (the target of the shard rows' foreign keys).
 */
function placeOrganization(statements, after, { id, name, shard, at }) {
  statements.push(
    `INSERT INTO organizations (id, name, stripe_account_id, platform_fee_bps, current_shard_id, created_at, updated_at)
     VALUES (${sql(id)}, ${sql(name)}, NULL, 0, ${shard}, ${sql(at)}, ${sql(at)})`,
  );
  anchorOrganization(statements, after, { id, shard, at });
}

/** Its org_shards entry and anchor row (idempotent: also run for an organization seeded by an earlier run). */
function anchorOrganization(statements, after, { id, shard, at }) {
  statements.push(`INSERT OR IGNORE INTO org_shards (org_id, shard_id, reason, first_at) VALUES (${sql(id)}, ${shard}, 'placed', ${sql(at)})`);
  // a wrangler.toml binding no SHARD_1 is one database: DB is its shard 1 and holds the real row
  after.push([boundShards().includes(shard) ? `SHARD_${shard}` : "DB", `INSERT OR IGNORE INTO organizations (id, name, created_at, updated_at) VALUES (${sql(id)}, '', ${sql(at)}, ${sql(at)})`]);
}

// ---------------------------------------------------------------------------------------------
// 3. demo seed

function readDemoFile() {
  if (!existsSync(DEMO_FILE)) return null;
  try {
    const data = JSON.parse(readFileSync(DEMO_FILE, "utf8"));
    return data && typeof data === "object" ? data : null;
  } catch {
    console.warn("dev-setup: .dev-demo.json is unreadable; creating fresh demo credentials");
    return null;
  }
}

function seedDemo() {
  const saved = readDemoFile();
  const savedKey = typeof saved?.api_key === "string" && API_KEY_PATTERN.test(saved.api_key) ? saved.api_key : null;

  // One round trip for everything we need to know.
  const lookups = [
    `SELECT 'org_saved' AS k, id AS v FROM organizations WHERE id = ${sql(saved?.org_id ?? "")}`,
    `SELECT 'org_named' AS k, id AS v FROM (SELECT id FROM organizations WHERE name = ${sql(DEMO_ORG_NAME)} ORDER BY created_at LIMIT 1)`,
    `SELECT 'second_org' AS k, id AS v FROM (SELECT id FROM organizations WHERE name = ${sql(SECOND_ORG_NAME)} ORDER BY created_at LIMIT 1)`,
    `SELECT 'user' AS k, id AS v FROM users WHERE email = ${sql(DEMO_USER_EMAIL)}`,
    `SELECT 'key' AS k, id || ' ' || org_id || ' ' || active AS v FROM api_keys WHERE key_hash = ${sql(savedKey ? sha256Hex(savedKey) : "")}`,
  ].join(" UNION ALL ");
  const found = Object.fromEntries(query(lookups).map((r) => [r.k, r.v]));

  const at = new Date().toISOString();
  const statements = [];
  /** [binding, statement] pairs for the shards, run after the global statements */
  const onShards = [];
  const created = [];
  const shards = boundShards();
  // every bound shard registered open (a deployment registers its shards with PATCH /operator/shards/:n)
  for (const n of shards) statements.push(`INSERT OR IGNORE INTO shards (id, state, created_at, updated_at) VALUES (${n}, 'open', ${sql(at)}, ${sql(at)})`);

  let orgId = found.org_saved ?? found.org_named;
  if (!orgId) {
    orgId = prefixedId("org");
    created.push("organization");
    placeOrganization(statements, onShards, { id: orgId, name: DEMO_ORG_NAME, shard: shards[0] ?? 1, at });
  } else {
    anchorOrganization(statements, onShards, { id: orgId, shard: shards[0] ?? 1, at });
  }
  let secondOrgId = found.second_org;
  if (!secondOrgId && shards.length > 1) {
    secondOrgId = prefixedId("org");
    created.push(`second organization (shard ${shards[1]})`);
    placeOrganization(statements, onShards, { id: secondOrgId, name: SECOND_ORG_NAME, shard: shards[1], at });
  } else if (secondOrgId && shards.length > 1) {
    anchorOrganization(statements, onShards, { id: secondOrgId, shard: shards[1], at });
  }

  let userId = found.user;
  if (!userId) {
    userId = prefixedId("usr");
    created.push("admin user");
    statements.push(
      `INSERT INTO users (id, email, name, created_at) VALUES (${sql(userId)}, ${sql(DEMO_USER_EMAIL)}, ${sql(DEMO_USER_NAME)}, ${sql(at)})
       ON CONFLICT (email) DO NOTHING`,
    );
  }
  statements.push(
    `INSERT INTO memberships (user_id, org_id, role, created_at) VALUES (${sql(userId)}, ${sql(orgId)}, 'admin', ${sql(at)})
     ON CONFLICT (user_id, org_id) DO UPDATE SET role = 'admin'`,
  );
  if (secondOrgId) {
    statements.push(
      `INSERT INTO memberships (user_id, org_id, role, created_at) VALUES (${sql(userId)}, ${sql(secondOrgId)}, 'admin', ${sql(at)})
       ON CONFLICT (user_id, org_id) DO UPDATE SET role = 'admin'`,
    );
  }

  let keyId;
  let rawKey;
  let reused = false;
  const [savedKeyId, savedKeyOrg, savedKeyActive] = (found.key ?? "").split(" ");
  if (savedKey && savedKeyId && savedKeyOrg === orgId && savedKeyActive === "1") {
    keyId = savedKeyId;
    rawKey = savedKey;
    reused = true;
  } else {
    if (savedKey && savedKeyId && savedKeyActive !== "1") {
      console.log("dev-setup: the saved demo key was deactivated; creating a new one");
    } else if (savedKey && !savedKeyId) {
      console.log("dev-setup: the saved demo key is no longer in the local database (rotated or reset); creating a new one");
    }
    keyId = prefixedId("key");
    created.push("API key");
    rawKey = newRawApiKey();
    statements.push(
      `INSERT INTO api_keys (id, org_id, name, key_hash, key_prefix, scopes, rate_limit_rpm, active, last_used_at, created_at, updated_at)
       VALUES (${sql(keyId)}, ${sql(orgId)}, ${sql(DEMO_KEY_NAME)}, ${sql(sha256Hex(rawKey))}, ${sql(rawKey.slice(0, 7))},
               ${sql(JSON.stringify(DEMO_SCOPES))}, ${DEMO_RPM}, 1, NULL, ${sql(at)}, ${sql(at)})`,
    );
  }

  executeFile(statements);
  for (const binding of new Set(onShards.map(([b]) => b))) {
    executeFile(
      onShards.filter(([b]) => b === binding).map(([, st]) => st),
      binding,
    );
  }

  // Read back what the Worker will see, so a broken seed fails here and not at the first curl.
  const check = query(
    `SELECT k.id AS key_id, k.org_id AS org_id, m.role AS role FROM api_keys k
     JOIN memberships m ON m.org_id = k.org_id AND m.user_id = ${sql(userId)}
     WHERE k.key_hash = ${sql(sha256Hex(rawKey))} AND k.active = 1`,
  );
  if (check.length !== 1 || check[0].key_id !== keyId || check[0].role !== "admin") {
    fail("the demo seed did not land in the local database as expected", JSON.stringify(check));
  }

  const demo = {
    note: "Local demo credentials written by scripts/dev-setup.mjs. Git-ignored; never commit.",
    base_url: BASE_URL,
    org_id: orgId,
    org_name: DEMO_ORG_NAME,
    second_org_id: secondOrgId ?? null,
    user_id: userId,
    user_email: DEMO_USER_EMAIL,
    key_id: keyId,
    api_key: rawKey,
    scopes: DEMO_SCOPES,
    created_at: reused && saved?.created_at ? saved.created_at : at,
  };
  writeFileSync(DEMO_FILE, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  console.log(
    created.length === 0
      ? "dev-setup: demo data present; reusing the saved demo key"
      : `dev-setup: demo data seeded (new: ${created.join(", ")})`,
  );
  return demo;
}

// ---------------------------------------------------------------------------------------------
// 4. banner

function printBanner(demo) {
  const envelopeBody = JSON.stringify({ envelope_name: "Demo contract", customer_email: "jane@example.com", customer_name: "Jane Doe" });
  const lines = [
    "esign-vault local dev",
    "",
    `URL          ${BASE_URL}`,
    `API docs     ${BASE_URL}/api/v2/docs`,
    `Org          ${demo.org_id}  (${demo.org_name})`,
    ...(demo.second_org_id ? [`Second org   ${demo.second_org_id}  (${SECOND_ORG_NAME}, on shard 2; X-Org-Id in the console)`] : []),
    `Admin user   ${demo.user_id}  (${demo.user_email})`,
    `API key      ${demo.api_key}`,
    `Key id       ${demo.key_id}  (all scopes, ${DEMO_RPM} rpm)`,
    `Operator     OPERATOR_TOKEN in .dev.vars  (npm run operator -- help)`,
    `Saved in     .dev-demo.json (git-ignored)`,
    "",
    "Create an envelope:",
    `curl -s -X POST ${BASE_URL}/api/v2/partner/envelopes -H "X-API-Key: ${demo.api_key}" -H "Content-Type: application/json" -d '${envelopeBody}'`,
    "",
    "List envelopes:",
    `curl -s ${BASE_URL}/api/v2/partner/envelopes -H "X-API-Key: ${demo.api_key}"`,
  ];
  // Long lines (the curl commands) are not wrapped, so they stay copy-pasteable; the box fits the rest.
  const width = Math.max(...lines.filter((l) => !l.startsWith("curl")).map((l) => l.length));
  const bar = "═".repeat(width + 2);
  const out = [`╔${bar}╗`];
  for (const l of lines) out.push(l.startsWith("curl") ? l : `║ ${l.padEnd(width)} ║`);
  out.push(`╚${bar}╝`);
  console.log(`\n${out.join("\n")}\n`);
}

// ---------------------------------------------------------------------------------------------

ensureDevVars();
await ensureDevSeal();
ensureDevEvidence();
if (!readDevVar("OPERATOR_TOKEN")) console.warn("dev-setup: warning: OPERATOR_TOKEN is empty in .dev.vars; the operator API will answer 503");
applyMigrations();
printBanner(seedDemo());
