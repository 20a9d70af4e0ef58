import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import type { Env } from "../../../src/env";
import { call, newTenant } from "../../helpers/api";
import { sentKbaEnvelope } from "../../helpers/kba";
import { kbaEnvelope, outboxOf, signerRows } from "../../helpers/signing";
import { memberToken } from "../../helpers/templates";
import { shardDbOf } from "../../helpers/shards";

/** POST …/send through the app with `sendEnv`, the way a deployment configured so would answer. */
async function sendWith(sendEnv: Env, key: string, envelopeId: string, body: unknown = {}) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`http://localhost/api/v2/partner/envelopes/${envelopeId}/send`, {
      method: "POST",
      headers: { "X-API-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }),
    sendEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as any };
}

describe("sending a KBA envelope", () => {
  it("without a KBA provider configured fails with 503 naming KBA_PROVIDER, and nothing is sent", async () => {
    const t = await newTenant();
    const e = await kbaEnvelope(t.key, t.orgId);
    for (const value of [undefined, "", "acme-bureau"]) {
      const res = await sendWith({ ...env, KBA_PROVIDER: value }, t.key, e.envelope_id);
      expect(res.status, String(value)).toBe(503);
      expect(res.body.error).toMatch(/KBA_PROVIDER/);
    }
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}/status`, { key: t.key })).body.data.status).toBe("pending");
    expect(await signerRows(e.envelope_id)).toHaveLength(0);
    expect(await outboxOf(e.envelope_id)).toHaveLength(0);
    expect((await shardDbOf(e.envelope_id).prepare("SELECT COUNT(*) AS n FROM kba_checks WHERE envelope_id = ?").bind(e.envelope_id).first())!.n).toBe(0);

    // the same envelope goes out once the provider is configured
    const sent = await sendWith({ ...env, KBA_PROVIDER: "sandbox" }, t.key, e.envelope_id);
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ status: "sent", kba_required: true, provider_instance: "cloud" });
  });

  it("refuses send_email: false with 422 (the signer verifies on the signing host, reached by email)", async () => {
    const t = await newTenant();
    const e = await kbaEnvelope(t.key, t.orgId);
    const res = await call("POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: { send_email: false } });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([expect.objectContaining({ path: ["send_email"] })]);
    expect(await signerRows(e.envelope_id)).toHaveLength(0);
  });

  it("adds the KBA step automatically: one check per customer-side signer, recorded with the send", async () => {
    const s = await sentKbaEnvelope({ dealerIsSender: true });
    const checks = await shardDbOf(s.envelopeId).prepare("SELECT c.status, c.provider, s.role FROM kba_checks c JOIN signers s ON s.id = c.signer_id WHERE c.envelope_id = ?").bind(s.envelopeId).all();
    expect(checks.results).toEqual([{ status: "required", provider: "sandbox", role: "buyer" }]);
    const sendEntry = await shardDbOf(s.envelopeId).prepare("SELECT data FROM audit_log WHERE chain_id = ? AND action = 'envelope.send'").bind(s.envelopeId).first<{ data: string }>();
    expect(JSON.parse(sendEntry!.data).kba).toEqual({ provider: "sandbox", challenged: [s.buyerEmail] });
  });

  it("the console send adds the same KBA step", async () => {
    const t = await newTenant();
    const e = await kbaEnvelope(t.key, t.orgId);
    const bearer = await memberToken(t.orgId, "admin");
    const sent = await call("POST", `/envelopes/${e.envelope_id}/send`, { bearer, body: {} });
    expect(sent.status).toBe(200);
    expect(sent.body.data.signers[0].signing_url).toMatch(new RegExp(`^${env.SIGNING_HOST}/s/`));
    const checks = await shardDbOf(e.envelope_id).prepare("SELECT status FROM kba_checks WHERE envelope_id = ?").bind(e.envelope_id).all();
    expect(checks.results).toEqual([{ status: "required" }]);
    expect((await call("GET", `/signing/${sent.body.data.signers[0].slug}`)).body.data.kba).toEqual({ required: true, status: "required" });
    expect((await call("GET", `/envelopes/${e.envelope_id}/kba`, { bearer })).body).toEqual({ data: [] });
  });

  it("refuses an embedded sign widget for a sent KBA envelope (409 kba_required): KBA signing happens on the signing host only", async () => {
    const s = await sentKbaEnvelope();
    const res = await call("POST", "/embed/token", { key: s.key, body: { envelope_id: s.envelopeId, user_email: s.buyerEmail, widget_type: "sign" } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "kba_required" });
    expect(typeof res.body.error).toBe("string");
  });
});
