// The Prism journey: starts the local service (scripts/lib/dev-server.mjs), puts `prism proxy --errors`
// in front of it with the service's own OpenAPI document, and drives requests through the proxy. Prism
// checks every request and every answer against the document; with --errors a violation comes back as
// Prism's own error answer instead of the service's. The script counts the operations of the document
// that the journey exercised and fails if any was not, or if Prism reported any violation, printing them.
// It sends no request without its credential: Prism checks the security requirement itself and answers
// such a request on its own (stoplightio/prism#2527), whatever 401 the document declares; the
// refusals' documentation is checked against real answers in test/openapi.test.ts.
// docs/decisions/openapi-document.md describes it. Usage: npm run prism:journey
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fetchWithDeadline, freePort, root, startFreshServer, stopServer } from "./lib/dev-server.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const METHODS = ["get", "post", "put", "patch", "delete"];

/** `/api/v2/partner/envelopes/{envelope_id}` as a pattern matching the concrete path. */
const patternOf = (path) => new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+").replace(/\{[^}]+\}/g, "[^/]+")}$`);

function operationsOf(doc) {
  const ops = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) if (item[method]) ops.push({ method, path, id: item[method].operationId ?? `${method} ${path}`, pattern: patternOf(path) });
  }
  // the most literal template first: /vault/control-keys/{kid} before /vault/{vault_id}/transfers
  return ops.sort((a, b) => (b.path.match(/\{/g)?.length ?? 0) < (a.path.match(/\{/g)?.length ?? 0) ? 1 : -1);
}

async function startPrism(docFile, upstream) {
  const port = await freePort();
  const child = spawn(join(root, "node_modules", ".bin", "prism"), ["proxy", "--errors", "-p", String(port), docFile, upstream], {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = [];
  const onData = (d) => log.push(...String(d).split("\n").filter(Boolean));
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prism exited:\n${log.join("\n")}`);
    if (log.some((l) => l.includes("Prism is listening"))) return { child, base: `http://127.0.0.1:${port}`, log };
    if (Date.now() > deadline) throw new Error(`prism did not start within 60 s:\n${log.slice(-40).join("\n")}`);
    await sleep(200);
  }
}

const stopPrism = (prism) => {
  try {
    process.kill(-prism.child.pid, "SIGTERM");
  } catch {
    // already gone
  }
};

/** One exchange through Prism: the answer, with the operation it belongs to recorded and any violation kept. */
function journey(prismBase, ops) {
  const exercised = new Map();
  const violations = [];
  let exchanges = 0;
  async function request(method, path, { key, bearer, body, headers = {} } = {}) {
    const h = { ...headers };
    if (key) h["x-api-key"] = key;
    if (bearer) h.authorization = `Bearer ${bearer}`;
    if (body !== undefined) h["content-type"] ??= "application/json";
    const res = await fetchWithDeadline(`${prismBase}${path}`, { method: method.toUpperCase(), headers: h, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
    exchanges++;
    const bare = path.split("?")[0];
    const op = ops.find((o) => o.method === method && o.pattern.test(bare));
    if (op) exercised.set(op.id, (exercised.get(op.id) ?? 0) + 1);
    else violations.push(`${method.toUpperCase()} ${path}: no operation of the document matches`);
    // Prism's own answers (a violation under --errors) are problem documents typed under stoplight.io
    let json = null;
    try {
      json = JSON.parse(res.text);
    } catch {
      // not JSON (a PDF, a page)
    }
    if (json && typeof json.type === "string" && json.type.includes("stoplight.io/prism/errors")) {
      violations.push(`${method.toUpperCase()} ${path} -> ${res.status} ${json.title}: ${JSON.stringify(json.validation ?? json.detail).slice(0, 1500)}`);
    }
    return { status: res.status, headers: res.headers, json, text: res.text };
  }
  return { request, exercised, violations, count: () => exchanges };
}

/** Steps whose answer was not the one expected: reported, and the journey goes on with the next step. */
const unexpected = [];
function expectStatus(res, status, what) {
  if (res.status !== status) unexpected.push(`${what}: expected ${status}, got ${res.status}: ${res.text.slice(0, 300)}`);
  return res.json ?? {};
}

const dir = mkdtempSync(join(tmpdir(), "prism-journey-"));
let server;
let prism;
let j;
let ops = [];
let failed = false;
try {
  server = await startFreshServer(join(dir, "state"));
  const docRes = await fetchWithDeadline(`${server.base}/api/v2/openapi.json`);
  const doc = JSON.parse(docRes.text);
  const docFile = join(dir, "openapi.json");
  writeFileSync(docFile, docRes.text);
  ops = operationsOf(doc);
  prism = await startPrism(docFile, server.base);
  j = journey(prism.base, ops);
  const op = { bearer: server.secrets.OPERATOR_TOKEN };

  // --- meta
  expectStatus(await j.request("get", "/health"), 200, "health");
  expectStatus(await j.request("get", "/api/v2/seal-certificates"), 200, "seal certificates");
  expectStatus(await j.request("get", "/api/v2/evidence/verifier"), 200, "evidence verifier");

  // --- operator: an organization, its key, a user and a console token
  const org = expectStatus(await j.request("post", "/api/v2/operator/orgs", { ...op, body: { name: "Prism Motors" } }), 201, "create org").data;
  expectStatus(await j.request("get", "/api/v2/operator/orgs", op), 200, "list orgs");
  expectStatus(await j.request("get", `/api/v2/operator/orgs/${org.org_id}`, op), 200, "get org");
  expectStatus(await j.request("get", "/api/v2/operator/shards", op), 200, "list shards");
  const keyRes = expectStatus(await j.request("post", `/api/v2/operator/orgs/${org.org_id}/api-keys`, { ...op, body: { scopes: ["envelopes:read", "envelopes:write", "vault:read", "vault:write", "compliance:read", "esign:write", "webhooks:write"], rate_limit_rpm: 1000 } }), 201, "create key").data;
  const key = keyRes.key ?? keyRes.api_key;
  expectStatus(await j.request("get", `/api/v2/operator/api-keys/${keyRes.key_id}`, op), 200, "get key");
  expectStatus(await j.request("get", `/api/v2/operator/orgs/${org.org_id}/usage`, op), 200, "usage");

  // --- partner: an envelope's life, and the refusals a partner meets
  const created = expectStatus(await j.request("post", "/api/v2/partner/envelopes", { key, body: { envelope_name: "Prism contract", customer_email: "buyer@example.com", customer_name: "Buyer" }, headers: { "idempotency-key": "prism-1" } }), 201, "create envelope").data;
  expectStatus(await j.request("post", "/api/v2/partner/envelopes", { key, body: { envelope_name: "Prism contract", customer_email: "buyer@example.com", customer_name: "Buyer" }, headers: { "idempotency-key": "prism-1" } }), 201, "replay");
  expectStatus(await j.request("get", "/api/v2/partner/envelopes", { key }), 200, "list envelopes");
  expectStatus(await j.request("get", `/api/v2/partner/envelopes/${created.envelope_id}`, { key }), 200, "get envelope");
  expectStatus(await j.request("get", `/api/v2/partner/envelopes/${created.envelope_id}/events`, { key }), 200, "events");
  expectStatus(await j.request("get", `/api/v2/partner/envelopes/${created.envelope_id}/status`, { key }), 200, "status");
  expectStatus(await j.request("get", `/api/v2/partner/envelopes/${created.envelope_id}/compliance`, { key }), 200, "compliance");
  expectStatus(await j.request("get", "/api/v2/partner/templates", { key }), 200, "partner templates");
  expectStatus(await j.request("get", "/api/v2/partner/vault", { key }), 200, "vault book");
  expectStatus(await j.request("get", "/api/v2/partner/vault/transfers", { key }), 200, "vault transfers");
  expectStatus(await j.request("get", "/api/v2/partner/vault/control-keys", { key }), 200, "control keys");

  // --- console: a user of the organization and an access token
  const user = expectStatus(await j.request("post", `/api/v2/operator/orgs/${org.org_id}/users`, { ...op, body: { email: "admin@prism.example", name: "Admin", role: "admin" } }), 201, "create user").data;
  const token = expectStatus(await j.request("post", `/api/v2/operator/users/${user.user_id}/access-tokens`, { ...op, body: { org_id: org.org_id } }), 201, "access token").data.access_token;
  const admin = { bearer: token, headers: { "x-org-id": org.org_id } };
  expectStatus(await j.request("get", "/api/v2/webhooks/events", admin), 200, "webhook event types");
  expectStatus(await j.request("get", "/api/v2/webhooks/endpoints", admin), 200, "webhook endpoints");
  expectStatus(await j.request("get", "/api/v2/org/embed-settings", admin), 200, "embed settings");
  expectStatus(await j.request("get", "/api/v2/org/esign-disclosure", admin), 200, "esign disclosure");
  expectStatus(await j.request("get", `/api/v2/envelopes/${created.envelope_id}`, admin), 200, "console envelope");
  expectStatus(await j.request("put", "/api/v2/org/embed-settings", { ...admin, body: { frame_ancestors: ["https://lender.example"] } }), 200, "put embed settings");
  const endpoint = expectStatus(await j.request("post", "/api/v2/webhooks/endpoints", { ...admin, body: { url: "https://hooks.lender.example/esign", events: ["envelope.completed"] } }), 201, "create webhook endpoint").data ?? {};
  expectStatus(await j.request("patch", `/api/v2/webhooks/endpoints/${endpoint.endpoint_id}`, { ...admin, body: { description: "Prism" } }), 200, "update webhook endpoint");
  expectStatus(await j.request("get", `/api/v2/webhooks/endpoints/${endpoint.endpoint_id}/deliveries`, admin), 200, "webhook deliveries");
  expectStatus(await j.request("delete", `/api/v2/webhooks/endpoints/${endpoint.endpoint_id}`, admin), 200, "delete webhook endpoint");
  const batch = expectStatus(await j.request("post", "/api/v2/bulk-send", { ...admin, body: { name: "Prism batch", document_source: "new" } }), 201, "create batch").data ?? {};
  expectStatus(await j.request("get", `/api/v2/bulk-send/${batch.batch_id}?page=1&limit=10`, admin), 200, "batch progress");
  expectStatus(await j.request("get", `/api/v2/operator/bulk-send/${batch.batch_id}`, op), 200, "operator batch progress");
  expectStatus(await j.request("patch", `/api/v2/bulk-send/${batch.batch_id}`, { ...admin, body: { name: "Prism batch 2" } }), 200, "update batch");
  expectStatus(await j.request("delete", `/api/v2/bulk-send/${batch.batch_id}`, admin), 200, "delete batch");
  expectStatus(await j.request("post", `/api/v2/operator/orgs/${org.org_id}/customers`, { ...op, body: { name: "Prism Buyer", email: "prism.buyer@example.com" } }), 201, "create customer");
  expectStatus(await j.request("patch", `/api/v2/operator/orgs/${org.org_id}`, { ...op, body: { name: "Prism Motors Ltd" } }), 200, "update org");
  expectStatus(await j.request("patch", `/api/v2/operator/api-keys/${keyRes.key_id}`, { ...op, body: { rate_limit_rpm: 1000 } }), 200, "update key");
  expectStatus(await j.request("post", `/api/v2/partner/envelopes/${created.envelope_id}/void`, { key, body: { reason: "Prism journey" } }), 200, "void");
  expectStatus(await j.request("post", `/api/v2/partner/envelopes/${created.envelope_id}/void`, { key, body: { reason: "again" } }), 422, "void twice");
} catch (err) {
  failed = true;
  console.error(`journey stopped: ${err.stack ?? err}`);
} finally {
  if (prism) stopPrism(prism);
  await stopServer(server);
}

rmSync(dir, { recursive: true, force: true });
if (j) {
  const missed = ops.filter((o) => !j.exercised.has(o.id));
  console.log(`Prism journey: ${ops.length} operations in the document, ${ops.length - missed.length} exercised, ${j.count()} exchanges, ${j.violations.length} violations`);
  for (const v of j.violations) console.log(`  violation: ${v}`);
  if (missed.length) console.log(`  not exercised (${missed.length}): ${missed.map((o) => o.id).join(", ")}`);
  for (const u of unexpected) console.log(`  unexpected answer: ${u}`);
  if (missed.length || j.violations.length || unexpected.length) failed = true;
}
process.exitCode = failed ? 1 : 0;
