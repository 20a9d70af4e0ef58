// Runs before `npm run dev` (the "predev" script): makes a fresh clone usable with no manual steps,
// and a restart quick by skipping what is already done. One line per step, with its duration.
//   1. assets: scripts/build-assets.mjs, unless its inputs (web/, the vendored packages' versions, the
//      script) are those of the last build and its outputs are there (.wrangler/dev-assets.json)
//   2. .dev.vars from .dev.vars.example, every `change-me-...` placeholder replaced by a random value
//   3. the development seal: with openssl, the dev PKI's (made once, under .wrangler/dev-pki: B-LTA);
//      without, a self-signed one (B-B); a seal of the developer's own is kept
//   4. local D1 migrations applied to every database (the global DB and each shard) in this one
//      process (scripts/lib/local-d1.mjs), only those not yet applied
//   5. a demo organization (on shard 1), a second one (on shard 2), admin user and all-scopes API key
//      seeded (idempotently: only what is missing is written)
// scripts/dev.mjs prints the demo credentials and ready-to-run curl lines once /health answers.
// docs/decisions/dev-start.md says where the time went and why.
// The raw API key cannot be read back from D1 (only its SHA-256 is stored), so it is kept in the
// git-ignored .dev-demo.json and reused on later runs while its hash is still in the local database.
// Everything here is local: nothing touches Cloudflare's network.
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { generateSealCertificate, pemForDotenv } from "./lib/seal-cert.mjs";
import { devEvidenceVars, hasOpenssl, isGeneratedDevSeal } from "./lib/dev-evidence.mjs";
// ids and the demo API key from the Worker's own generator (src/lib/ids.ts re-exports the same module)
import { API_KEY_PATTERN, newRawApiKey, prefixedId } from "../src/lib/random-ids.mjs";
import { d1Bindings, migrateAllLocal } from "./migrate.mjs";
import { openLocalD1 } from "./lib/local-d1.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const DEV_VARS = join(root, ".dev.vars");
const DEV_VARS_EXAMPLE = join(root, ".dev.vars.example");
const DEMO_FILE = join(root, ".dev-demo.json");

const BASE_URL = "http://localhost:8787";
const ASSETS_STAMP = join(root, ".wrangler", "dev-assets.json");
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

/** Runs one step, then prints one line: its name, what it did and how long it took. */
async function step(name, fn) {
  const started = performance.now();
  const said = await fn();
  console.log(`dev-setup: ${name}: ${said ?? "done"} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

/** The local databases (global and shards), opened once for the migrations and the seed (scripts/lib/local-d1.mjs). */
let local;

/** SELECT against a local D1 database (default the global DB); returns its rows. */
async function query(statement, binding = "DB") {
  return local.db(binding).all(statement);
}

/** Runs several SQL statements against a local D1 database (default the global DB) in one batch (one transaction). */
async function executeAll(statements, binding = "DB") {
  await local.db(binding).batch(statements.map((s) => s.trim()));
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
    return "created with fresh random secrets";
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
  const placeholders = [...current.matchAll(/^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*change-me/gm)].map((m) => m[1]);
  if (placeholders.length > 0) {
    console.warn(`dev-setup: warning: .dev.vars still has placeholder values for ${placeholders.join(", ")}`);
  }
  if (missing.length > 0) {
    const sep = current.endsWith("\n") || current === "" ? "" : "\n";
    writeFileSync(DEV_VARS, `${current}${sep}${missing.join("\n")}\n`);
    return `present; added ${missing.map((l) => l.split("=")[0]).join(", ")}`;
  }
  return "present (kept as is)";
}

/** A self-signed development seal in .dev.vars when it has none (completing a signing needs one). */
async function ensureDevSeal() {
  if (readDevVar("SEAL_PRIVATE_KEY") && readDevVar("SEAL_CERTIFICATE")) return "present";
  const seal = await generateSealCertificate();
  const values = { SEAL_PRIVATE_KEY: pemForDotenv(seal.privateKeyPem), SEAL_CERTIFICATE: pemForDotenv(seal.certificatePem) };
  const lines = readFileSync(DEV_VARS, "utf8").split("\n");
  for (const [name, value] of Object.entries(values)) {
    const i = lines.findIndex((l) => new RegExp(`^\\s*${name}\\s*=`).test(l));
    if (i >= 0) lines[i] = `${name}=${value}`;
    else lines.splice(lines.length - (lines.at(-1) === "" ? 1 : 0), 0, `${name}=${value}`);
  }
  writeFileSync(DEV_VARS, lines.join("\n"));
  return "wrote a self-signed development seal certificate to .dev.vars (SEAL_PRIVATE_KEY, SEAL_CERTIFICATE)";
}

/**
 * PAdES B-LTA locally (docs/evidence.md): with `openssl` on the PATH, a throwaway CA's seal (naming the dev
 * OCSP responder) and SEAL_TSA_URL (the dev TSA) go into .dev.vars; `npm run dev` (scripts/dev.mjs)
 * starts OpenSSL's TSA and OCSP responder beside wrangler dev. A seal of the developer's own is kept.
 * Without openssl: the self-signed seal stays and local seals are B-B.
 */
function ensureDevEvidence() {
  if (!isGeneratedDevSeal(readDevVar("SEAL_CERTIFICATE"))) {
    return ".dev.vars has a seal of your own: kept (evidence levels as its certificate and SEAL_TSA_URL allow)";
  }
  const evidence = devEvidenceVars(root);
  if (!evidence) {
    return "openssl not found: local seals stay PAdES B-B (install openssl for B-LTA: docs/evidence.md)";
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
  return (
    `${evidence.created ? "made a throwaway OpenSSL CA (.wrangler/dev-pki)" : "dev PKI present (.wrangler/dev-pki)"}; ` +
    `${changed ? "wrote its seal and SEAL_TSA_URL to .dev.vars; " : ""}npm run dev starts OpenSSL's TSA and OCSP responder: local seals reach PAdES B-LTA`
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

async function applyMigrations() {
  let results;
  try {
    results = await migrateAllLocal({ local });
  } catch (err) {
    fail(`migrations failed: ${err.message}`);
  }
  const applied = results.filter((r) => r.applied.length > 0);
  if (applied.length === 0) return `all ${results.length} databases up to date (${results.map((r) => r.binding).join(", ")})`;
  return results.map((r) => `${r.binding} ${r.applied.length === 0 ? "up to date" : `+${r.applied.length}`}`).join(", ");
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

async function seedDemo() {
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
  const found = Object.fromEntries((await query(lookups)).map((r) => [r.k, r.v]));

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

  await executeAll(statements);
  for (const binding of new Set(onShards.map(([b]) => b))) {
    await executeAll(
      onShards.filter(([b]) => b === binding).map(([, st]) => st),
      binding,
    );
  }

  // Read back what the Worker will see, so a broken seed fails here and not at the first curl.
  const check = await query(
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
    second_org_name: secondOrgId ? SECOND_ORG_NAME : null,
    user_id: userId,
    user_email: DEMO_USER_EMAIL,
    key_id: keyId,
    api_key: rawKey,
    scopes: DEMO_SCOPES,
    rate_limit_rpm: DEMO_RPM,
    created_at: reused && saved?.created_at ? saved.created_at : at,
  };
  writeFileSync(DEMO_FILE, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return created.length === 0 ? "present; reusing the saved demo key (.dev-demo.json)" : `seeded (new: ${created.join(", ")}; .dev-demo.json)`;
}

// ---------------------------------------------------------------------------------------------
// assets

/** What the asset build depends on: web/ (contents), the script, and the packages it vendors or bundles with. */
function assetInputs() {
  const hash = createHash("sha256");
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) hash.update(`${relative(root, path)}\0`).update(readFileSync(path)).update("\0");
    }
  };
  walk(join(root, "web"));
  hash.update(readFileSync(join(root, "scripts", "build-assets.mjs")));
  for (const pkg of ["esbuild", "swagger-ui-dist", "pdfjs-dist", "signature_pad"]) {
    const manifest = join(root, "node_modules", pkg, "package.json");
    hash.update(`${pkg}@${existsSync(manifest) ? JSON.parse(readFileSync(manifest, "utf8")).version : "missing"}\0`);
  }
  return hash.digest("hex");
}

const ASSET_OUTPUTS = ["public/static/app/signing.js", "public/static/app/vault.js", "public/static/app/signing.css", "public/static/vendor/swagger-ui/swagger-ui-bundle.js", "public/static/vendor/pdfjs/pdf.worker.min.mjs"];

/** scripts/build-assets.mjs, unless the last build had these inputs and its outputs are still there. */
function buildAssets() {
  const inputs = assetInputs();
  let stamp = null;
  try {
    stamp = JSON.parse(readFileSync(ASSETS_STAMP, "utf8"));
  } catch {
    // no stamp: build
  }
  if (stamp?.inputs === inputs && ASSET_OUTPUTS.every((f) => existsSync(join(root, f)))) return "up to date (inputs unchanged since the last build)";
  const res = spawnSync(process.execPath, [join(root, "scripts", "build-assets.mjs")], { cwd: root, encoding: "utf8" });
  if (res.status !== 0) fail(`the asset build (scripts/build-assets.mjs) failed (exit ${res.status ?? res.signal})`, `${res.stdout ?? ""}\n${res.stderr ?? ""}`);
  mkdirSync(dirname(ASSETS_STAMP), { recursive: true });
  writeFileSync(ASSETS_STAMP, `${JSON.stringify({ inputs, built_at: new Date().toISOString() })}\n`);
  return "built public/static (scripts/build-assets.mjs)";
}

// ---------------------------------------------------------------------------------------------

const started = performance.now();
if (!existsSync(join(root, "node_modules", "miniflare", "package.json"))) fail("the dependencies are not installed; run `npm install` first.");
// workerd starts (a few seconds) while the steps before the migrations run
const opening = openLocalD1().then(
  (opened) => ({ opened }),
  (error) => ({ error }),
);
await step("assets", buildAssets);
await step(".dev.vars", ensureDevVars);
// With openssl the dev PKI's seal is the one used, so the self-signed one is only made without it.
await step("seal and evidence levels", async () =>
  hasOpenssl() ? ensureDevEvidence() : `${await ensureDevSeal()}; openssl not found: local seals stay PAdES B-B (install openssl for B-LTA: docs/evidence.md)`,
);
if (!readDevVar("OPERATOR_TOKEN")) console.warn("dev-setup: warning: OPERATOR_TOKEN is empty in .dev.vars; the operator API will answer 503");
await step("local databases", async () => {
  const { opened, error } = await opening;
  if (error) fail("could not open the local D1 databases (Miniflare)", String(error?.stack ?? error));
  local = opened;
  return `opened ${local.databases.map((d) => d.binding).join(", ")} (.wrangler/state/v3/d1, one process; started with the first step)`;
});
try {
  await step("migrations", applyMigrations);
  await step("demo data", seedDemo);
} finally {
  await local.dispose();
}
console.log(`dev-setup: ready in ${((performance.now() - started) / 1000).toFixed(1)} s; starting wrangler dev (the demo credentials follow once /health answers)`);
