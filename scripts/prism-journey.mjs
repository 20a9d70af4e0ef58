// The Prism journey: starts the local service (scripts/lib/dev-server.mjs, with DEV_PAGES and a Stripe
// webhook secret of its own), puts `prism proxy --errors` in front of it with the service's own OpenAPI
// document, and drives requests through the proxy. Prism checks every request and every answer against
// the document; with --errors a violation comes back as Prism's own error answer instead of the
// service's. The script counts the operations of the document that the journey exercised and fails if
// any was not, if Prism reported any violation, or if a step got another status than the one it expects,
// printing them.
// The journey covers every operation: two organizations, templates with an ASCII-only PDF (asciiPdf:
// Prism would garble a binary upload), the signer's routes (the SMS outbox's passcode read on /dev/sms,
// the sandbox KBA's questions), the vault and its transfers, pools, holds and control keys (a deletion
// signed with a Control-Signature), embed, a Stripe event signed with the run's secret, the console and
// operator routes, and the storage links the service hands out, fetched through the proxy.
// It sends no request without its credential: Prism checks the security requirement itself and answers
// such a request on its own (stoplightio/prism#2527), whatever 401 the document declares; the
// refusals' documentation is checked against real answers in test/openapi.spec.ts.
// docs/decisions/openapi-document.md describes it. Usage: npm run prism:journey
import { spawn } from "node:child_process";
import { CompactSign } from "jose";
import Stripe from "stripe";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fetchWithDeadline, freePort, randomSecrets, root, startFreshServer, stopServer } from "./lib/dev-server.mjs";

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
    const form = body instanceof FormData;
    if (body !== undefined && !form) h["content-type"] ??= "application/json";
    const res = await fetchWithDeadline(`${prismBase}${path}`, { method: method.toUpperCase(), headers: h, body: body === undefined || form || typeof body === "string" ? body : JSON.stringify(body) });
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
  if (Array.isArray(status) ? !status.includes(res.status) : res.status !== status) unexpected.push(`${what}: expected ${status}, got ${res.status}: ${res.text.slice(0, 300)}`);
  return res.json ?? {};
}


/**
 * A one-page PDF of ASCII bytes only, built by hand with its cross-reference table: Prism re-encodes a
 * multipart body as text, so a binary upload (a compressed stream, the usual binary comment line) reaches
 * the service garbled; this one arrives as sent.
 */
function asciiPdf(text) {
  const content = `BT /F1 14 Tf 72 700 Td (${text}) Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  let out = "%PDF-1.4\n";
  const offsets = objects.map((o, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  if ([...out].some((c) => c.charCodeAt(0) >= 0x80)) throw new Error("asciiPdf: a byte >= 0x80");
  return out;
}

/** A multipart form of `fields`, the PDF under `file`. */
function pdfForm(fields = {}, text = "Prism contract") {
  const form = new FormData();
  form.set("file", new Blob([asciiPdf(text)], { type: "application/pdf" }), "contract.pdf");
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return form;
}

/** The path (and query) of a URL the service handed out, to be fetched through Prism instead. */
const pathOf = (url) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** Every string in `value` that is a URL of the service's storage routes. */
const storageUrls = (value) => [...JSON.stringify(value ?? null).matchAll(/"(https?:\/\/[^"]*\/storage\/[^"]*)"/g)].map((m) => m[1]);

/** The Stripe webhook's signing secret for this run: the journey signs an event as Stripe would. */
const STRIPE_WEBHOOK_SECRET = `whsec_prism_${Date.now()}`;

const dir = mkdtempSync(join(tmpdir(), "prism-journey-"));
let server;
let prism;
let j;
let ops = [];
let failed = false;
try {
  server = await startFreshServer(join(dir, "state"), { ...randomSecrets(), DEV_PAGES: "true", STRIPE_WEBHOOK_SECRET });
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
  const keyRes = expectStatus(await j.request("post", `/api/v2/operator/orgs/${org.org_id}/api-keys`, { ...op, body: { scopes: ["envelopes:read", "envelopes:write", "vault:read", "vault:write", "vault:control", "compliance:read", "esign:write", "webhooks:write"], rate_limit_rpm: 1000 } }), 201, "create key").data;
  let key = keyRes.key ?? keyRes.api_key;
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

  // --- dev pages (DEV_PAGES=true, a development deployment)
  expectStatus(await j.request("get", "/dev/faults"), 200, "dev faults");
  expectStatus(await j.request("post", "/dev/faults", { body: { paused: false } }), 200, "set dev faults");
  expectStatus(await j.request("get", "/dev/invariants"), 200, "dev invariants");
  expectStatus(await j.request("post", "/dev/jobs/prune-idempotency", { body: { at: new Date().toISOString() } }), 200, "dev job");

  // --- organization settings
  expectStatus(await j.request("put", "/api/v2/org/esign-disclosure", { ...admin, body: { required: true, text: "You agree to sign electronically.", paper_copy_contact: "paper@prism.example", withdrawal_instructions: "Write to paper@prism.example." } }), 200, "put esign disclosure");
  expectStatus(await j.request("get", "/api/v2/org/retention", admin), 200, "retention");
  expectStatus(await j.request("put", "/api/v2/org/retention", { ...admin, body: { retain_years_after_close: 7, auto_destroy: false } }), 200, "put retention");
  expectStatus(await j.request("get", "/api/v2/org/settings", admin), 200, "org settings");
  expectStatus(await j.request("put", "/api/v2/org/settings", { ...admin, body: { default_locale: "en" } }), 200, "put org settings");
  // the organization's chains as a streamed, signed ZIP (docs/decisions/audit-export.md)
  const exported = await j.request("get", "/api/v2/org/audit-export", admin);
  expectStatus(exported, 200, "audit export");
  if (!exported.text.startsWith("PK")) unexpected.push(`audit export: not a ZIP (${exported.text.slice(0, 40)})`);
  expectStatus(await j.request("patch", "/api/v2/partner/webhook", { key, body: { url: null } }), 200, "legacy webhook");

  // --- partner templates: a PDF (ASCII bytes: asciiPdf) with a signature and an attachment field
  const sigField = { name: "buyer_signature", type: "signature", role: "buyer", required: true, placement: { mode: "absolute", areas: [{ page: 1, x: 0.1, y: 0.5, w: 0.3, h: 0.05 }] } };
  const tpl = expectStatus(await j.request("post", "/api/v2/partner/templates", { key, body: pdfForm({ name: "Prism template", fields_json: JSON.stringify([sigField]) }) }), 200, "create template").data ?? {};
  expectStatus(await j.request("get", `/api/v2/partner/templates/${tpl.template_id}`, { key }), 200, "get template");
  const attField = { name: "id_document", type: "attachment", role: "buyer", required: false, accept: ["application/pdf"], placement: { mode: "absolute", areas: [{ page: 1, x: 0.1, y: 0.3, w: 0.3, h: 0.05 }] } };
  expectStatus(await j.request("post", `/api/v2/partner/templates/${tpl.template_id}/fields`, { key, body: { fields: [attField] } }), 200, "add template fields");
  const kbaTpl = expectStatus(await j.request("post", "/api/v2/partner/templates", { key, body: pdfForm({ name: "Prism KBA template", kba_required: "true", fields_json: JSON.stringify([sigField]) }) }), 200, "create KBA template").data ?? {};

  /** An envelope on `template`, sent to one buyer: its id and the buyer's signing slug. */
  const buyer = { role: "buyer", email: "buyer@example.com", name: "Buyer", routing_order: 1 };
  async function sentEnvelope(name, template = tpl, signer = buyer) {
    const env = expectStatus(await j.request("post", "/api/v2/partner/envelopes", { key, body: { envelope_name: name, customer_email: signer.email, customer_name: signer.name, template_id: template.template_id } }), 201, `create ${name}`).data ?? {};
    const sent = expectStatus(await j.request("post", `/api/v2/partner/envelopes/${env.envelope_id}/send`, { key, body: { signers: [signer] } }), 200, `send ${name}`).data ?? {};
    return { id: env.envelope_id, slug: sent.signers?.[0]?.slug, signerId: sent.signers?.[0]?.signer_id };
  }

  // --- the signer: consent, view, document, attachment, submit
  const e1 = await sentEnvelope("Prism signed");
  expectStatus(await j.request("get", `/api/v2/partner/envelopes/${e1.id}/signing-links`, { key }), 200, "signing links");
  expectStatus(await j.request("patch", `/api/v2/partner/envelopes/${e1.id}/signers/${e1.signerId}`, { key, body: { name: "Buyer B." } }), 200, "correct signer");
  // an invitation is re-sent at most every 10 minutes, and sending it was the first: the documented 429
  expectStatus(await j.request("post", `/api/v2/partner/envelopes/${e1.id}/signers/${e1.signerId}/resend`, { key }), 429, "resend invitation too soon");
  const links = expectStatus(await j.request("get", `/api/v2/partner/envelopes/${e1.id}/signing-links`, { key }), 200, "signing links after correction").data;
  const slug1 = (Array.isArray(links) ? links : links?.signers ?? links?.links ?? [])[0]?.slug ?? e1.slug;
  expectStatus(await j.request("get", `/api/v2/signing/${slug1}`), 200, "signing state");
  expectStatus(await j.request("post", `/api/v2/signing/${slug1}/consent`, { body: { agree: true } }), 200, "consent");
  expectStatus(await j.request("post", `/api/v2/signing/${slug1}/view`), 200, "view");
  expectStatus(await j.request("get", `/api/v2/signing/${slug1}/document`), 200, "signing document");
  expectStatus(await j.request("put", `/api/v2/signing/${slug1}/attachments/id_document`, { body: pdfForm({}, "Prism ID") }), 200, "signer attachment");
  expectStatus(await j.request("post", `/api/v2/signing/${slug1}/payment-token`), 200, "payment token");
  expectStatus(await j.request("post", `/api/v2/signing/${slug1}/submit`, { body: { values: { buyer_signature: "Buyer B." } } }), 200, "submit");
  const done = expectStatus(await j.request("get", `/api/v2/signing/${slug1}`), 200, "signing state after submit");
  for (const url of storageUrls(done).filter((u) => u.includes("/storage/copies/")).slice(0, 1)) expectStatus(await j.request("get", pathOf(url)), 200, "signer copy");
  const att = expectStatus(await j.request("get", `/api/v2/partner/envelopes/${e1.id}/attachments/id_document/signed-url`, { key }), 200, "attachment url");
  for (const url of storageUrls(att).slice(0, 1)) expectStatus(await j.request("get", pathOf(url)), 200, "attachment download");

  // --- vault-in of the signed envelope, its record and downloads
  expectStatus(await j.request("post", `/api/v2/partner/envelopes/${e1.id}/vault-in-signed`, { key, body: {} }), 200, "vault-in signed");
  for (const [path, what] of [["vault/signed-url", "authoritative url"], ["vault/copy/signed-url", "copy url"], ["vault/certificate/signed-url", "certificate pdf url"], ["vault/evidence/signed-url", "evidence url"]]) {
    const r = expectStatus(await j.request("get", `/api/v2/partner/envelopes/${e1.id}/${path}`, { key }), 200, what);
    if (what === "authoritative url") for (const url of storageUrls(r).slice(0, 1)) expectStatus(await j.request("get", pathOf(url)), 200, "vault download");
  }
  expectStatus(await j.request("get", `/api/v2/partner/envelopes/${e1.id}/vault/certificate`, { key }), 200, "vault certificate");
  const book = expectStatus(await j.request("get", "/api/v2/partner/vault", { key }), 200, "vault book with the record").data ?? [];
  const vaultId = (Array.isArray(book) ? book : book.records ?? []).find((r) => r.envelope_id === e1.id)?.vault_id;
  expectStatus(await j.request("get", `/api/v2/partner/vault/${vaultId}`, { key }), 200, "vault record");
  for (const [path, what] of [["signed-url", "record authoritative url"], ["copy/signed-url", "record copy url"], ["certificate", "record certificate"], ["certificate/signed-url", "record certificate pdf"], ["evidence/signed-url", "record evidence"], ["control-history", "control history"]]) {
    expectStatus(await j.request("get", `/api/v2/partner/vault/${vaultId}/${path}`, { key }), 200, what);
  }
  expectStatus(await j.request("get", `/api/v2/partner/vault/${vaultId}/attestation`, { key }), 200, "attestation");

  // --- holds: the organization's and the operator's
  const hold = expectStatus(await j.request("post", `/api/v2/partner/vault/${vaultId}/holds`, { key, body: { reason: "litigation", reference: "case 1" } }), 201, "place hold").data ?? {};
  expectStatus(await j.request("delete", `/api/v2/partner/vault/${vaultId}/holds/${hold.hold_id}`, { key }), 200, "release hold");
  const opHold = expectStatus(await j.request("post", `/api/v2/operator/vault/${vaultId}/holds`, { ...op, body: { reason: "regulator" } }), 201, "operator hold").data ?? {};
  expectStatus(await j.request("delete", `/api/v2/operator/vault/${vaultId}/holds/${opHold.hold_id}`, op), 200, "operator release hold");

  // --- a second organization: transfers of control and pools
  const org2 = expectStatus(await j.request("post", "/api/v2/operator/orgs", { ...op, body: { name: "Prism Bank" } }), 201, "second org").data ?? {};
  const key2res = (expectStatus(await j.request("post", `/api/v2/operator/orgs/${org2.org_id}/api-keys`, { ...op, body: { scopes: ["envelopes:read", "envelopes:write", "vault:read", "vault:write", "vault:control"] } }), 201, "second key").data ?? {});
  const key2 = key2res.key ?? key2res.api_key;
  const offer = async (kind, what) => expectStatus(await j.request("post", `/api/v2/partner/vault/${vaultId}/transfers`, { key, body: { kind, to_org_id: org2.org_id, reference: what } }), 201, what).data ?? {};
  const t1 = await offer("assignment", "offer to reject");
  expectStatus(await j.request("post", `/api/v2/partner/vault/transfers/${t1.transfer_id}/reject`, { key: key2 }), 200, "reject transfer");
  const t2 = await offer("assignment", "offer to cancel");
  expectStatus(await j.request("post", `/api/v2/partner/vault/transfers/${t2.transfer_id}/cancel`, { key }), 200, "cancel transfer");
  const t3 = await offer("pledge", "pledge");
  expectStatus(await j.request("post", `/api/v2/partner/vault/transfers/${t3.transfer_id}/accept`, { key: key2 }), 200, "accept pledge");
  expectStatus(await j.request("post", `/api/v2/partner/vault/${vaultId}/release-pledge`, { key: key2 }), 200, "release pledge");
  const pool = async (what) => expectStatus(await j.request("post", "/api/v2/partner/vault/pools", { key, body: { kind: "assignment", to_org_id: org2.org_id, vault_ids: [vaultId], reference: what } }), 202, what).data ?? {};
  const p1 = await pool("pool to cancel");
  expectStatus(await j.request("get", `/api/v2/partner/vault/pools/${p1.pool_id}`, { key }), 200, "get pool");
  expectStatus(await j.request("get", `/api/v2/partner/vault/pools/${p1.pool_id}/manifest`, { key }), 200, "pool manifest");
  expectStatus(await j.request("post", `/api/v2/partner/vault/pools/${p1.pool_id}/cancel`, { key }), 200, "cancel pool");
  const p2 = await pool("pool to reject");
  expectStatus(await j.request("post", `/api/v2/partner/vault/pools/${p2.pool_id}/reject`, { key: key2 }), 200, "reject pool");
  const p3 = await pool("pool to accept");
  expectStatus(await j.request("post", `/api/v2/partner/vault/pools/${p3.pool_id}/accept`, { key: key2 }), 200, "accept pool");
  // the records move in the background (the pool's Durable Object): the receipt is sealed once they all have
  for (let i = 0; i < 100; i++) {
    const read = await j.request("get", `/api/v2/partner/vault/pools/${p3.pool_id}`, { key: key2 });
    if (read.status !== 200 || read.json?.data?.progress?.completed_at) break;
    await sleep(200);
  }
  expectStatus(await j.request("get", `/api/v2/partner/vault/pools/${p3.pool_id}/receipt`, { key: key2 }), 200, "pool receipt");
  expectStatus(await j.request("post", `/api/v2/partner/vault/${vaultId}/paid-off`, { key: key2, body: { reference: "paid" } }), 200, "paid off");

  // --- an uploaded, already signed document into the vault; then destroyed
  const up = expectStatus(await j.request("post", "/api/v2/partner/envelopes", { key, body: { envelope_name: "Prism upload", customer_email: "up@example.com", customer_name: "Up", document_source: "upload" } }), 201, "create upload envelope").data ?? {};
  const upv = expectStatus(await j.request("post", `/api/v2/partner/envelopes/${up.envelope_id}/vault-in-upload`, { key, body: pdfForm({ signed_at: new Date().toISOString() }, "Prism signed paper") }), 200, "vault-in upload").data ?? {};
  expectStatus(await j.request("post", `/api/v2/partner/vault/${upv.vault_id}/paper-out`, { key, body: { reason: "court order" } }), 200, "paper out");
  // retention keeps a record at least a year after it closes (retain_years_after_close >= 1): destroying it now is the documented 409
  expectStatus(await j.request("post", `/api/v2/partner/vault/${upv.vault_id}/destroy`, { key }), 409, "destroy within retention");

  // --- control keys
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
  const jwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  const ck = expectStatus(await j.request("post", "/api/v2/partner/vault/control-keys", { key, body: { jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, alg: "ES256" } } }), 201, "add control key").data ?? {};
  // with a control key registered, deleting one takes a Control-Signature by a key of the organization
  const controlSignature = await new CompactSign(new TextEncoder().encode(JSON.stringify({ action: "delete_key", kid: ck.kid, jti: `prism-${Date.now()}`, iat: Math.floor(Date.now() / 1000) })))
    .setProtectedHeader({ alg: "ES256", kid: ck.kid })
    .sign(pair.privateKey);
  expectStatus(await j.request("delete", `/api/v2/partner/vault/control-keys/${ck.kid}`, { key, headers: { "control-signature": controlSignature } }), 200, "delete control key");
  expectStatus(await j.request("post", "/api/v2/partner/vault/control-keys", { key, body: { jwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, alg: "ES256" } } }), 201, "add control key again");
  expectStatus(await j.request("delete", `/api/v2/operator/orgs/${org.org_id}/control-keys`, op), 200, "recover control keys");

  // --- decline, one-time passcode, KBA
  const e2 = await sentEnvelope("Prism declined");
  expectStatus(await j.request("post", `/api/v2/signing/${e2.slug}/decline`, { body: { reason: "wrong amount" } }), 200, "decline");
  const e3 = await sentEnvelope("Prism OTP", tpl, { ...buyer, phone: "+15555550123", auth: "sms_otp" });
  expectStatus(await j.request("post", `/api/v2/signing/${e3.slug}/otp`), 200, "send otp");
  const sms = await j.request("get", "/dev/sms");
  expectStatus(sms, 200, "dev sms");
  const code = /\b(\d{6})\b/.exec(sms.text.replace(/<[^>]*>/g, " "))?.[1] ?? "000000";
  expectStatus(await j.request("post", `/api/v2/signing/${e3.slug}/otp/verify`, { body: { code } }), 200, "verify otp");
  const e4 = await sentEnvelope("Prism KBA", kbaTpl);
  const kba = expectStatus(await j.request("get", `/api/v2/signing/${e4.slug}/kba`), 200, "kba questions").data?.session ?? {};
  expectStatus(await j.request("post", `/api/v2/signing/${e4.slug}/kba`, { body: { session_id: kba.session_id, answers: (kba.questions ?? []).map((q) => ({ question_id: q.question_id, choice_id: q.choices[0].choice_id })) } }), 200, "kba answers");
  expectStatus(await j.request("get", "/dev/emails"), 200, "dev emails");

  // --- embed: a token, a session, the payment routes
  const e6 = await sentEnvelope("Prism embed");
  const emb = expectStatus(await j.request("post", "/api/v2/embed/token", { key, body: { envelope_id: e6.id, user_email: "buyer@example.com", widget_type: "sign" } }), 200, "embed token").data ?? {};
  const embed = { bearer: emb.token ?? emb.embed_token };
  expectStatus(await j.request("post", "/api/v2/embed/session", { ...embed, body: { widget_type: "sign", envelope_id: e6.id } }), 200, "embed session");
  expectStatus(await j.request("post", "/api/v2/embed/payment-intent", embed), 200, "payment intent");
  expectStatus(await j.request("post", "/api/v2/embed/payment-status", embed), 200, "payment status");
  // an event signed with the run's secret, of a type the service does not handle: 200 `ignored`
  const stripeEvent = JSON.stringify({ id: "evt_prism_1", object: "event", type: "customer.created", data: { object: { id: "cus_prism" } } });
  const stripeSignature = new Stripe("sk_test_prism").webhooks.generateTestHeaderString({ payload: stripeEvent, secret: STRIPE_WEBHOOK_SECRET });
  expectStatus(await j.request("post", "/api/v2/stripe/webhook", { body: stripeEvent, headers: { "stripe-signature": stripeSignature } }), 200, "stripe webhook");

  // --- console: envelopes, templates, packages, builder, bulk send, webhooks
  const e5 = expectStatus(await j.request("post", "/api/v2/partner/envelopes", { key, body: { envelope_name: "Prism console", customer_email: "c@example.com", customer_name: "C", template_id: tpl.template_id } }), 201, "create console envelope").data ?? {};
  expectStatus(await j.request("post", `/api/v2/envelopes/${e5.envelope_id}/auto-vault-consent`, { ...admin, body: { auto_vault_enabled: true, acknowledge_authoritative_copy: true } }), 200, "auto-vault consent");
  const e7 = expectStatus(await j.request("post", "/api/v2/partner/envelopes", { key, body: { envelope_name: "Prism builder", customer_email: "b@example.com", customer_name: "B" } }), 201, "create builder envelope").data ?? {};
  const e8 = expectStatus(await j.request("post", "/api/v2/partner/envelopes", { key, body: { envelope_name: "Prism document", customer_email: "d@example.com", customer_name: "D" } }), 201, "create document envelope").data ?? {};
  expectStatus(await j.request("put", `/api/v2/partner/envelopes/${e8.envelope_id}/document`, { key, body: pdfForm() }), 200, "attach document");
  expectStatus(await j.request("post", "/api/v2/esign/builder-session", { ...admin, body: { envelope_id: e7.envelope_id } }), 201, "builder session");
  expectStatus(await j.request("post", `/api/v2/envelopes/${e5.envelope_id}/send`, { ...admin, body: { signers: [{ ...buyer, email: "c@example.com", name: "C" }] } }), 200, "console send");
  expectStatus(await j.request("get", `/api/v2/envelopes/${e5.envelope_id}/signing-links`, admin), 200, "console signing links");
  expectStatus(await j.request("get", `/api/v2/envelopes/${e4.id}/kba`, admin), 200, "console kba");
  expectStatus(await j.request("get", `/api/v2/envelopes/${e1.id}/audit/verify`, admin), 200, "audit verify");
  expectStatus(await j.request("post", `/api/v2/envelopes/${e5.envelope_id}/void`, { ...admin, body: { reason: "console void" } }), 200, "console void");
  const ctpl = expectStatus(await j.request("post", "/api/v2/templates", { ...admin, body: { name: "Console template" } }), 201, "console template").data ?? {};
  expectStatus(await j.request("put", `/api/v2/templates/${ctpl.template_id}/document`, { ...admin, body: pdfForm() }), 200, "template document");
  expectStatus(await j.request("patch", `/api/v2/templates/${ctpl.template_id}`, { ...admin, body: { name: "Console template 2" } }), 200, "update template");
  expectStatus(await j.request("get", `/api/v2/templates/${ctpl.template_id}`, admin), 200, "console get template");
  const pkg = expectStatus(await j.request("post", "/api/v2/document-packages", { ...admin, body: { name: "Prism package", template_ids: [tpl.template_id] } }), 201, "document package").data ?? {};
  expectStatus(await j.request("get", `/api/v2/document-packages/${pkg.package_id}`, admin), 200, "get package");
  expectStatus(await j.request("patch", `/api/v2/document-packages/${pkg.package_id}`, { ...admin, body: { name: "Prism package 2" } }), 200, "update package");
  expectStatus(await j.request("delete", `/api/v2/templates/${ctpl.template_id}`, admin), 200, "delete template");
  const customer = expectStatus(await j.request("post", `/api/v2/operator/orgs/${org.org_id}/customers`, { ...op, body: { name: "Bulk Buyer", email: "bulk.buyer@example.com" } }), 201, "bulk customer").data ?? {};
  const b2 = expectStatus(await j.request("post", "/api/v2/bulk-send", { ...admin, body: { name: "Prism bulk", document_source: "new" } }), 201, "bulk batch").data ?? {};
  expectStatus(await j.request("post", `/api/v2/bulk-send/${b2.batch_id}/items`, { ...admin, body: { customer_ids: [customer.customer_id] } }), 200, "bulk items");
  expectStatus(await j.request("post", `/api/v2/bulk-send/${b2.batch_id}/vault-consent`, { ...admin, body: { auto_vault_enabled: false } }), 200, "bulk vault consent");
  expectStatus(await j.request("patch", `/api/v2/bulk-send/${b2.batch_id}`, { ...admin, body: { master_template_id: tpl.template_id } }), 200, "bulk master template");
  expectStatus(await j.request("post", `/api/v2/bulk-send/${b2.batch_id}/submit`, admin), 202, "bulk submit");
  expectStatus(await j.request("post", `/api/v2/bulk-send/${b2.batch_id}/cancel`, admin), 200, "bulk cancel");
  const ep = expectStatus(await j.request("post", "/api/v2/webhooks/endpoints", { ...admin, body: { url: "https://hooks.lender.example/two", events: ["envelope.completed"] } }), 201, "webhook endpoint 2").data ?? {};
  expectStatus(await j.request("post", `/api/v2/webhooks/endpoints/${ep.endpoint_id}/rotate-secret`, admin), 200, "rotate secret");
  expectStatus(await j.request("post", `/api/v2/webhooks/endpoints/${ep.endpoint_id}/test`, admin), 200, "test endpoint");
  const dels = expectStatus(await j.request("get", `/api/v2/webhooks/endpoints/${ep.endpoint_id}/deliveries`, admin), 200, "deliveries 2").data;
  const delivery = (Array.isArray(dels) ? dels : dels?.deliveries ?? [])[0] ?? {};
  expectStatus(await j.request("get", `/api/v2/webhooks/deliveries/${delivery.delivery_id}`, admin), 200, "get delivery");
  expectStatus(await j.request("post", `/api/v2/webhooks/deliveries/${delivery.delivery_id}/redeliver`, admin), 202, "redeliver");

  // --- operator: a key rotated, a shard's state
  const rotated = expectStatus(await j.request("post", `/api/v2/operator/api-keys/${keyRes.key_id}/rotate`, op), 200, "rotate key").data ?? {};
  key = rotated.key ?? rotated.api_key ?? key;
  const shards = expectStatus(await j.request("get", "/api/v2/operator/shards", op), 200, "shards").data;
  const shard = (Array.isArray(shards) ? shards : shards?.shards ?? [])[0] ?? {};
  expectStatus(await j.request("patch", `/api/v2/operator/shards/${shard.shard_id}`, { ...op, body: { state: shard.state ?? "open" } }), 200, "update shard");

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
