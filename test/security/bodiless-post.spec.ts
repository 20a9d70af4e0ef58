import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ALL_SCOPES, call, newTenant, operator, OPERATOR_TOKEN } from "../helpers/api";
import { bulkTenant, readyBatch } from "../helpers/bulk";
import { sendableEnvelope, sendEnvelope } from "../helpers/signing";
import { memberToken } from "../helpers/templates";
import { completedEnvelope, vaultRecord } from "../helpers/vault";
import { createEndpoint, receiverUrl } from "../helpers/webhooks";
import { operations, servedDocument } from "./matrix/document";
import { shardDbOf } from "../helpers/shards";
import { sentOtpEnvelope } from "../helpers/otp";

/**
 * A POST whose operation declares no body, or only optional fields, takes an empty body without a
 * Content-Type (as DocuSign, Stripe and GitHub do); a body that is sent must still be JSON. The
 * operations come from the served document, so a bodiless POST added later fails here until it has a
 * way to reach 2xx below.
 */
const doc = await servedDocument();
const bodiless = operations(doc).filter((o) => o.method === "POST" && (!o.op.requestBody || o.op.requestBody.required === false));

/** `sameAsEmptyObject`: the service needs a field the schema leaves optional, so no empty body succeeds; it must be read as `{}`. */
type Ready = { path: string; headers: Record<string, string>; sameAsEmptyObject?: boolean };
const partner = (key: string) => ({ "X-API-Key": key });
const console_ = (token: string) => ({ Authorization: `Bearer ${token}` });

async function adminWithEndpoint() {
  const t = await newTenant();
  const admin = await memberToken(t.orgId, "admin");
  const ep = await createEndpoint(admin, { url: receiverUrl("ok").url });
  return { t, admin, ep };
}

/** How to call each of these operations so that it can succeed: a caller and a resource in the right state. */
const READY: Record<string, () => Promise<Ready>> = {
  rotateWebhookSecret: async () => {
    const { admin, ep } = await adminWithEndpoint();
    return { path: `/api/v2/webhooks/endpoints/${ep.endpoint_id}/rotate-secret`, headers: console_(admin) };
  },
  testWebhookEndpoint: async () => {
    const { admin, ep } = await adminWithEndpoint();
    return { path: `/api/v2/webhooks/endpoints/${ep.endpoint_id}/test`, headers: console_(admin) };
  },
  redeliverWebhook: async () => {
    const { admin, ep } = await adminWithEndpoint();
    const test = await SELF.fetch(`http://localhost/api/v2/webhooks/endpoints/${ep.endpoint_id}/test`, { method: "POST", headers: console_(admin) });
    const { data } = (await test.json()) as { data: { delivery_id: string } };
    return { path: `/api/v2/webhooks/deliveries/${data.delivery_id}/redeliver`, headers: console_(admin) };
  },
  rotateApiKey: async () => {
    const t = await newTenant();
    return { path: `/api/v2/operator/api-keys/${t.keyId}/rotate`, headers: console_(OPERATOR_TOKEN) };
  },
  createAccessToken: async () => {
    const t = await newTenant();
    const user = await operator("POST", `/orgs/${t.orgId}/users`, { email: `u-${crypto.randomUUID()}@example.com`, name: "U", role: "member" });
    return { path: `/api/v2/operator/users/${user.body.data.user_id}/access-tokens`, headers: console_(OPERATOR_TOKEN) };
  },
  sendEnvelope: async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    return { path: `/api/v2/partner/envelopes/${e.envelope_id}/send`, headers: partner(t.key) };
  },
  resendSignerInvitation: async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    const sent = await SELF.fetch(`http://localhost/api/v2/partner/envelopes/${e.envelope_id}/send`, { method: "POST", headers: partner(t.key) });
    const { data } = (await sent.json()) as { data: { signers: { signer_id: string }[] } };
    return { path: `/api/v2/partner/envelopes/${e.envelope_id}/signers/${data.signers[0]!.signer_id}/resend`, headers: partner(t.key) };
  },
  consoleSendEnvelope: async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    return { path: `/api/v2/envelopes/${e.envelope_id}/send`, headers: console_(await memberToken(t.orgId)) };
  },
  vaultSignedEnvelope: async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    return { path: `/api/v2/partner/envelopes/${e.envelope_id}/vault-in-signed`, headers: partner(t.key) };
  },
  openBuilderSession: async () => {
    const t = await newTenant();
    return { path: "/api/v2/esign/builder-session", headers: console_(await memberToken(t.orgId)), sameAsEmptyObject: true };
  },
  recordSigningView: async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    const sent = await sendEnvelope(t.key, e.envelope_id);
    return { path: `/api/v2/signing/${sent.body.data.signers[0].slug}/view`, headers: {} };
  },
  // Sign + Pay: no payment on this envelope, so each answers 200 with nothing due
  createSignerPaymentToken: async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    const sent = await sendEnvelope(t.key, e.envelope_id);
    return { path: `/api/v2/signing/${sent.body.data.signers[0].slug}/payment-token`, headers: {} };
  },
  // bulk send (spec 4.8): submit a ready batch; cancel a running one (200 clients: still running when the cancel arrives)
  submitBulkBatch: async () => {
    const t = await bulkTenant();
    const { batchId } = await readyBatch(t, { n: 1 });
    return { path: `/api/v2/bulk-send/${batchId}/submit`, headers: { ...console_(t.admin), "X-Org-Id": t.orgId } };
  },
  cancelBulkBatch: async () => {
    const t = await bulkTenant();
    const { batchId } = await readyBatch(t, { n: 200 });
    const submitted = await SELF.fetch(`http://localhost/api/v2/bulk-send/${batchId}/submit`, { method: "POST", headers: { ...console_(t.admin), "X-Org-Id": t.orgId } });
    if (submitted.status !== 202) throw new Error(`submit: ${submitted.status}`);
    return { path: `/api/v2/bulk-send/${batchId}/cancel`, headers: { ...console_(t.admin), "X-Org-Id": t.orgId } };
  },
  createPaymentIntent: async () => ({ path: "/api/v2/embed/payment-intent", headers: console_(await signEmbedToken()) }),
  getPaymentStatus: async () => ({ path: "/api/v2/embed/payment-status", headers: console_(await signEmbedToken()) }),
  // control of the authoritative copy (docs/control.md)
  acceptVaultTransfer: async () => {
    const { b, transferId } = await pendingTransfer("assignment");
    return { path: `/api/v2/partner/vault/transfers/${transferId}/accept`, headers: partner(b.key) };
  },
  rejectVaultTransfer: async () => {
    const { b, transferId } = await pendingTransfer("assignment");
    return { path: `/api/v2/partner/vault/transfers/${transferId}/reject`, headers: partner(b.key) };
  },
  cancelVaultTransfer: async () => {
    const { a, transferId } = await pendingTransfer("assignment");
    return { path: `/api/v2/partner/vault/transfers/${transferId}/cancel`, headers: partner(a.key) };
  },
  releaseVaultPledge: async () => {
    const { b, vaultId, transferId } = await pendingTransfer("pledge");
    const accepted = await call("POST", `/partner/vault/transfers/${transferId}/accept`, { key: b.key });
    if (accepted.status !== 200) throw new Error(`accept: ${accepted.status}`);
    return { path: `/api/v2/partner/vault/${vaultId}/release-pledge`, headers: partner(b.key) };
  },
  destroyVaultRecord: async () => {
    const { a, vaultId } = await controlledRecord();
    const paid = await call("POST", `/partner/vault/${vaultId}/paid-off`, { key: a.key, body: {} });
    if (paid.status !== 200) throw new Error(`paid-off: ${paid.status}`);
    // its retention has passed (the record closed 8 years ago, as far as the rule is concerned)
    await shardDbOf(vaultId).prepare("UPDATE vault_records SET retain_until = ? WHERE id = ?").bind(new Date(Date.now() - 86_400_000).toISOString(), vaultId).run();
    return { path: `/api/v2/partner/vault/${vaultId}/destroy`, headers: partner(a.key) };
  },
  // pools (docs/control.md "Pools"): a pending pool of one record from `a` to `b`
  acceptVaultPool: async () => {
    const { b, poolId } = await pendingPool();
    return { path: `/api/v2/partner/vault/pools/${poolId}/accept`, headers: partner(b.key) };
  },
  rejectVaultPool: async () => {
    const { b, poolId } = await pendingPool();
    return { path: `/api/v2/partner/vault/pools/${poolId}/reject`, headers: partner(b.key) };
  },
  cancelVaultPool: async () => {
    const { a, poolId } = await pendingPool();
    return { path: `/api/v2/partner/vault/pools/${poolId}/cancel`, headers: partner(a.key) };
  },
  // the SMS passcode (docs/consumer-signing.md): a signer sent with auth sms_otp asks for a code
  sendSigningOtp: async () => {
    const s = await sentOtpEnvelope();
    return { path: `/api/v2/signing/${s.slug}/otp`, headers: {} };
  },
  payOffVaultRecord: async () => {
    const { a, vaultId } = await controlledRecord();
    return { path: `/api/v2/partner/vault/${vaultId}/paid-off`, headers: partner(a.key) };
  },
};

/** A vaulted record of `a` (its controller), and another organization `b`, both holding vault:control. */
async function controlledRecord() {
  const [a, b] = await Promise.all([0, 1].map(() => newTenant({ scopes: [...ALL_SCOPES, "vault:control"] })));
  const e = await completedEnvelope(a!.key);
  const vaulted = await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: a!.key, body: {} });
  if (vaulted.status !== 200) throw new Error(`vault: ${vaulted.status}`);
  return { a: a!, b: b!, vaultId: (await vaultRecord(e.envelope_id))!.id as string };
}

/** controlledRecord with a transfer from `a` to `b` pending. */
async function pendingTransfer(kind: "assignment" | "pledge") {
  const parties = await controlledRecord();
  const offered = await call("POST", `/partner/vault/${parties.vaultId}/transfers`, { key: parties.a.key, body: { kind, to_org_id: parties.b.orgId } });
  if (offered.status !== 201) throw new Error(`offer: ${offered.status}`);
  return { ...parties, transferId: offered.body.data.transfer_id as string };
}

/** controlledRecord offered by `a` to `b` in a pool of one, pending. */
async function pendingPool() {
  const parties = await controlledRecord();
  const offered = await call("POST", "/partner/vault/pools", { key: parties.a.key, body: { kind: "assignment", to_org_id: parties.b.orgId, vault_ids: [parties.vaultId] } });
  if (offered.status !== 202 || offered.body.data.status !== "pending") throw new Error(`pool offer: ${offered.status} ${JSON.stringify(offered.body)}`);
  return { ...parties, poolId: offered.body.data.pool_id as string };
}

/** A sign embed token of a sent envelope's signer. */
async function signEmbedToken() {
  const t = await newTenant();
  const e = await sendableEnvelope(t.key);
  const sent = await sendEnvelope(t.key, e.envelope_id);
  const res = await SELF.fetch("http://localhost/api/v2/embed/token", {
    method: "POST",
    headers: { ...partner(t.key), "Content-Type": "application/json" },
    body: JSON.stringify({ envelope_id: e.envelope_id, user_email: sent.body.data.signers[0].email, widget_type: "sign" }),
  });
  return ((await res.json()) as { data: { token: string } }).data.token;
}

describe("a POST that takes no body, or only optional fields", () => {
  it("finds such operations in the document", () => {
    expect(bodiless.map((o) => o.op.operationId)).toEqual(expect.arrayContaining(["rotateWebhookSecret", "testWebhookEndpoint", "rotateApiKey", "redeliverWebhook"]));
  });

  for (const o of bodiless) {
    const id = o.op.operationId ?? `${o.method} ${o.path}`;
    const ready = READY[id];
    if (!ready) {
      it(`${id}: has a way to reach 2xx in this test`, () => expect.fail(`${o.method} ${o.path}: add it to READY in test/security/bodiless-post.spec.ts`));
      continue;
    }
    it(`${id}: answers 2xx to a POST with no body and no Content-Type, and 415 to a body that is not JSON`, async () => {
      const { path, headers, sameAsEmptyObject } = await ready();
      const wrong = await SELF.fetch(`http://localhost${path}`, { method: "POST", headers: { ...headers, "Content-Type": "text/plain" }, body: "hello" });
      expect(wrong.status).toBe(415);
      const res = await SELF.fetch(`http://localhost${path}`, { method: "POST", headers });
      if (sameAsEmptyObject) {
        const asJson = await SELF.fetch(`http://localhost${path}`, { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: "{}" });
        expect({ status: res.status, body: await res.json() }).toEqual({ status: asJson.status, body: await asJson.json() });
        return;
      }
      expect(res.status, await res.clone().text()).toBeGreaterThanOrEqual(200);
      expect(res.status).toBeLessThan(300);
    });
  }
});
