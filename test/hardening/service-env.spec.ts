import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { deliverWebhook } from "../../src/services/webhooks/deliver";
import { fanOutEvent } from "../../src/services/webhooks/fan-out";
import { call, callWith, newTenant } from "../helpers/api";
import { batchRow, bulkTenant, readyBatch } from "../helpers/bulk";
import { jobContextOf } from "../helpers/context";
import { sentKbaEnvelope, takeKba } from "../helpers/kba";
import { kbaEnvelope, outboxOf, sendableEnvelope, signerRows } from "../helpers/signing";
import { placedText, signing, storedDocument } from "../helpers/signing-flow";
import { adminToken, insertEvent, received, receiverUrl, tenantWithEndpoint } from "../helpers/webhooks";
import { shardDbOf } from "../helpers/shards";

/**
 * A production deployment configured as docs/deploy.md says (SERVICE_ENV unset, Postmark chosen,
 * the strict webhook policy, no dev pages, no KBA provider), with `overrides` applied: each test
 * turns on one development switch and shows the request that needs it answering 503.
 */
const production = (overrides: Partial<Env> = {}): Env => ({
  ...env,
  SERVICE_ENV: undefined,
  EMAIL_TRANSPORT: "postmark",
  POSTMARK_SERVER_TOKEN: "server-token",
  EMAIL_FROM: '"Dealer Finance" <sign@example.com>',
  // never reached: every send below is refused before it commits, or sends no email
  POSTMARK_API_BASE: "http://127.0.0.1:9",
  WEBHOOK_URL_POLICY: "public-https",
  DEV_PAGES: "false",
  KBA_PROVIDER: undefined,
  ...overrides,
});

/** The refusal of a development-only setting: 503 in the error shape, naming the variable. */
function expectRefused(res: { status: number; body: any }, variable: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(typeof res.body.error).toBe("string");
  expect(res.body.error).toContain(variable);
}

const statusOf = async (key: string, envelopeId: string) => (await call("GET", `/partner/envelopes/${envelopeId}/status`, { key })).body.data.status;

describe("SERVICE_ENV: the KBA sandbox in production", () => {
  it("sending a KBA envelope with KBA_PROVIDER=sandbox answers 503 naming KBA_PROVIDER, and nothing is sent", async () => {
    const t = await newTenant();
    const e = await kbaEnvelope(t.key, t.orgId);
    for (const serviceEnv of [undefined, "production", "Development"]) {
      const res = await callWith(production({ SERVICE_ENV: serviceEnv, KBA_PROVIDER: "sandbox" }), "POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: {} });
      expectRefused(res, "KBA_PROVIDER");
      expect(res.body.error, String(serviceEnv)).toMatch(/sandbox.*development only/);
    }
    expect(await statusOf(t.key, e.envelope_id)).toBe("pending");
    expect(await signerRows(e.envelope_id)).toHaveLength(0);
    expect(await outboxOf(e.envelope_id)).toHaveLength(0);
  });

  it("a signer of an envelope sent with the sandbox gets 503 naming KBA_PROVIDER for their questions once the deployment is production", async () => {
    const s = await sentKbaEnvelope();
    const res = await callWith(production({ KBA_PROVIDER: "sandbox" }), "GET", `/signing/${s.buyer}/kba`);
    expectRefused(res, "KBA_PROVIDER");
    // no question set was started for them
    expect((await shardDbOf(s.envelopeId).prepare("SELECT COUNT(*) AS n FROM kba_sessions WHERE signer_id IN (SELECT id FROM signers WHERE envelope_id = ?)").bind(s.envelopeId).first())!.n).toBe(0);
  });
});

describe("SERVICE_ENV: email without a transport in production", () => {
  it("a send that emails answers 503 naming EMAIL_TRANSPORT when it is unset or outbox, and nothing is committed", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    for (const transport of [undefined, "", "outbox"]) {
      const res = await callWith(production({ EMAIL_TRANSPORT: transport }), "POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: {} });
      expectRefused(res, "EMAIL_TRANSPORT");
    }
    expect(await statusOf(t.key, e.envelope_id)).toBe("pending");
    expect(await signerRows(e.envelope_id)).toHaveLength(0);
    expect(await outboxOf(e.envelope_id)).toHaveLength(0);
  });

  it("a send without email does not need a transport: it goes out in production", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    const res = await callWith(production({ EMAIL_TRANSPORT: undefined }), "POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: { send_email: false } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.status).toBe("sent");
    expect(await outboxOf(e.envelope_id)).toHaveLength(0);
  });

  it("submitting a bulk batch (every client is emailed) answers 503 naming EMAIL_TRANSPORT, and the batch stays ready", async () => {
    const t = await bulkTenant();
    const { batchId } = await readyBatch(t, { n: 2 });
    const headers = { "X-Org-Id": t.orgId };
    const res = await callWith(production({ EMAIL_TRANSPORT: "outbox" }), "POST", `/bulk-send/${batchId}/submit`, { bearer: t.admin, headers });
    expectRefused(res, "EMAIL_TRANSPORT");
    expect((await batchRow(batchId))!.status).toBe("ready");
  });

  it("in development an unset EMAIL_TRANSPORT is still the outbox: the send succeeds and the invitation stays queued", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    const res = await callWith({ ...env, SERVICE_ENV: "development", EMAIL_TRANSPORT: undefined }, "POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await outboxOf(e.envelope_id)).map((r) => r.status)).toEqual(["queued"]);
  });
});

describe("SERVICE_ENV: the dev pages in production", () => {
  it("GET /dev/emails with DEV_PAGES=true answers 503 naming DEV_PAGES (and still 404 when it is off); development serves it", async () => {
    const refused = await callWith(production({ DEV_PAGES: "true" }), "GET", "http://localhost/dev/emails");
    expectRefused(refused, "DEV_PAGES");
    expect(JSON.stringify(refused.body)).not.toMatch(/href=/);
    expect((await callWith(production(), "GET", "http://localhost/dev/emails")).status).toBe(404);
    const served = await callWith({ ...env, SERVICE_ENV: "development", DEV_PAGES: "true" }, "GET", "http://localhost/dev/emails");
    expect(served.status).toBe(200);
    expect(served.body).toContain("Development only");
  });
});

describe("SERVICE_ENV: the loopback webhook policy in production", () => {
  it("registering or re-pointing an endpoint with WEBHOOK_URL_POLICY=allow-loopback answers 503 naming it; nothing is stored", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const prod = production({ WEBHOOK_URL_POLICY: "allow-loopback" });
    for (const url of [receiverUrl("ok").url, "https://hooks.example.com/esign"]) {
      expectRefused(await callWith(prod, "POST", "/webhooks/endpoints", { bearer: token, body: { url, events: ["*"] } }), "WEBHOOK_URL_POLICY");
    }
    expect((await env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE org_id = ?").bind(t.orgId).first())!.n).toBe(0);

    // the same public URL under production's own policy is accepted
    const created = await callWith(production(), "POST", "/webhooks/endpoints", { bearer: token, body: { url: "https://hooks.example.com/esign", events: ["*"] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const patched = await callWith(prod, "PATCH", `/webhooks/endpoints/${created.body.data.endpoint_id}`, { bearer: token, body: { url: "https://hooks.example.com/v2" } });
    expectRefused(patched, "WEBHOOK_URL_POLICY");
  });

  it("left unset, the policy refuses a loopback URL in production (422, only https) and accepts it in development", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const body = { url: receiverUrl("ok").url, events: ["*"] };
    const refused = await callWith(production({ WEBHOOK_URL_POLICY: undefined }), "POST", "/webhooks/endpoints", { bearer: token, body });
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(JSON.stringify(refused.body)).toMatch(/only https/);
    const accepted = await callWith({ ...env, SERVICE_ENV: "development", WEBHOOK_URL_POLICY: undefined }, "POST", "/webhooks/endpoints", { bearer: token, body });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
  });

  it("a delivery in production never reaches a loopback URL, whatever WEBHOOK_URL_POLICY says", async () => {
    const { t, target } = await tenantWithEndpoint("ok");
    const eventId = await insertEvent(t.orgId);
    const [deliveryId] = await fanOutEvent(jobContextOf(eventId), { eventId });
    const result = await deliverWebhook(jobContextOf(deliveryId!, production({ WEBHOOK_URL_POLICY: "allow-loopback" })), { deliveryId: deliveryId! });
    expect(result).toMatchObject({ succeeded: false, responseStatus: null });
    expect(result!.error).toMatch(/URL not allowed/);
    expect(await received(target.path)).toEqual([]);
  });
});

describe("the KBA provider is named wherever the outcome is", () => {
  it("KBA results, the compliance certificate (JSON and PDF) and the signing certificate page say `sandbox`", async () => {
    const s = await sentKbaEnvelope();
    const { res } = await takeKba(s.buyer, s.buyerEmail);
    expect(res.status).toBe(200);
    const [result] = (await call("GET", `/envelopes/${s.envelopeId}/kba`, { bearer: s.bearer })).body.data;
    expect(result).toMatchObject({ signer_email: s.buyerEmail, status: "passed", provider: "sandbox" });

    expect((await signing("POST", s.buyer, "view")).status).toBe(200);
    const submitted = await signing("POST", s.buyer, "submit", { values: { buyer_signature: "Jane Buyer" } });
    expect(submitted.body.data).toMatchObject({ envelope_status: "completed" });
    const signed = await storedDocument(s.envelopeId, "signed");
    expect((await placedText(signed!.bytes)).pages.join(" ")).toMatch(/KBA passed \(sandbox session /);
    expect((await call("POST", `/partner/envelopes/${s.envelopeId}/vault-in-signed`, { key: s.key, body: {} })).status).toBe(200);

    const cert = await call("GET", `/partner/envelopes/${s.envelopeId}/vault/certificate`, { key: s.key });
    expect(cert.body.data.identity_verification.signers).toEqual([expect.objectContaining({ signer: s.buyerEmail, status: "passed", provider: "sandbox" })]);
    const row = await shardDbOf(s.envelopeId).prepare("SELECT pdf_key FROM vault_certificates WHERE envelope_id = ? ORDER BY version DESC LIMIT 1").bind(s.envelopeId).first<{ pdf_key: string }>();
    const pdf = new Uint8Array(await (await env.DOCS.get(row!.pdf_key))!.arrayBuffer());
    const text = (await placedText(pdf)).pages.join(" ");
    expect(text).toContain("provider sandbox (development provider: verifies nobody)");
  });
});
