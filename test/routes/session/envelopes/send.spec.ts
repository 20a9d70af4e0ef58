import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, newTenant } from "../../../helpers/api";
import { kbaEnvelope, outboxOf, sendableEnvelope } from "../../../helpers/signing";
import { memberToken } from "../../../helpers/templates";
import { shardDbOf } from "../../../helpers/shards";

const consoleSend = (bearer: string, envelopeId: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  call("POST", `/envelopes/${envelopeId}/send`, { bearer, body, headers });

describe("console POST /envelopes/:id/send and GET /envelopes/:id/signing-links", () => {
  it("lets any member send; the links are named signing_url and the audit names the user", async () => {
    const t = await newTenant();
    const bearer = await memberToken(t.orgId, "member");
    const e = await sendableEnvelope(t.key, ["buyer", "co_buyer"]);
    const res = await consoleSend(bearer, e.envelope_id, {
      signers: [
        { role: "buyer", email: "jane@example.com", name: "Jane" },
        { role: "co_buyer", email: "john@example.com", name: "John" },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe("sent");
    for (const s of res.body.data.signers) {
      expect(s.signing_url).toBe(`${env.EMBED_HOST}/s/${s.slug}`);
      expect(s).not.toHaveProperty("embed_url");
    }
    expect((await outboxOf(e.envelope_id)).map((m) => m.to_email)).toEqual(["jane@example.com"]);
    const audit = await shardDbOf(e.envelope_id).prepare("SELECT actor_type FROM audit_log WHERE chain_id = ? AND action = 'envelope.send'").bind(e.envelope_id).first();
    expect(audit).toEqual({ actor_type: "user" });

    const links = await call("GET", `/envelopes/${e.envelope_id}/signing-links`, { bearer });
    expect(links.status).toBe(200);
    // fresh 15-minute sessions for the same signers, each on the same host
    expect(links.body.data.signers.map((s: { email: string }) => s.email)).toEqual(res.body.data.signers.map((s: { email: string }) => s.email));
    for (const s of links.body.data.signers) expect(s.signing_url).toMatch(new RegExp(`^${env.EMBED_HOST}/s/es_`));
  });

  it("refuses send_email false on a KBA envelope (422) and sends it by email to the signing host", async () => {
    const t = await newTenant();
    const bearer = await memberToken(t.orgId, "admin");
    const e = await kbaEnvelope(t.key, t.orgId);
    const refused = await consoleSend(bearer, e.envelope_id, { send_email: false });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/^KBA envelopes are sent by email/);
    const res = await consoleSend(bearer, e.envelope_id);
    expect(res.status).toBe(200);
    expect(res.body.data.signers[0].signing_url.startsWith(`${env.SIGNING_HOST}/s/`)).toBe(true);
  });

  it("answers 409 for links before the send", async () => {
    const t = await newTenant();
    const bearer = await memberToken(t.orgId);
    const e = await sendableEnvelope(t.key);
    expect((await call("GET", `/envelopes/${e.envelope_id}/signing-links`, { bearer })).status).toBe(409);
  });

  it("needs a token (401) and membership (403); another organization's envelope is 404", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    expect((await call("POST", `/envelopes/${e.envelope_id}/send`, { body: {} })).status).toBe(401);
    expect((await call("GET", `/envelopes/${e.envelope_id}/signing-links`)).status).toBe(401);
    const other = await newTenant();
    const stranger = await memberToken(other.orgId);
    expect((await consoleSend(stranger, e.envelope_id, {}, { "X-Org-Id": t.orgId })).status).toBe(403);
    expect((await consoleSend(stranger, e.envelope_id)).status).toBe(404);
    expect((await call("GET", `/envelopes/${e.envelope_id}/signing-links`, { bearer: stranger })).status).toBe(404);
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key })).body.data.status).toBe("pending");
  });
});
