import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createEnvelope, newKey, newTenant } from "../../../helpers/api";
import { kbaEnvelope, sendableEnvelope, sendEnvelope } from "../../../helpers/signing";
import { shardDbOf } from "../../../helpers/shards";

const links = (key: string, envelopeId: string) => call("GET", `/partner/envelopes/${envelopeId}/signing-links`, { key });

describe("GET /partner/envelopes/:id/signing-links", () => {
  it("lists one short-lived link per signer in signing order, for the same signers the send returned", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key, ["buyer", "dealer"]);
    const sent = await sendEnvelope(t.key, e.envelope_id, {
      signers: [
        { role: "dealer", email: "dealer@example.com", name: "Dealer", routing_order: 2 },
        { role: "buyer", email: "jane@example.com", name: "Jane", routing_order: 1 },
      ],
    });
    const res = await links(t.key, e.envelope_id);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(["signers"]);
    expect(res.body.data.signers.map((s: { email: string }) => s.email)).toEqual(["jane@example.com", "dealer@example.com"]);
    // each answer mints fresh signing sessions: the same signers, not the same credentials
    const withoutCredentials = (list: Record<string, unknown>[]) =>
      [...list].map(({ slug: _s, embed_url: _u, expires_at: _e, ...rest }) => rest).sort((a, b) => String(a.role).localeCompare(String(b.role)));
    expect(withoutCredentials(res.body.data.signers)).toEqual(withoutCredentials(sent.body.data.signers));
    for (const s of res.body.data.signers) {
      expect(Object.keys(s).sort()).toEqual(["email", "embed_url", "expires_at", "name", "role", "routing_order", "signer_id", "slug", "status", "view_only"]);
      expect(s.status).toBe("pending");
      // Opaque: the URL names neither the envelope nor the organization.
      expect(s.embed_url.startsWith(`${env.EMBED_HOST}/`)).toBe(true);
      expect(s.embed_url).not.toContain(e.envelope_id);
      expect(s.embed_url).not.toContain(t.orgId);
    }
  });

  it("reports each signer's status", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    await sendEnvelope(t.key, e.envelope_id);
    await shardDbOf(e.envelope_id).prepare("UPDATE signers SET status = 'viewed' WHERE envelope_id = ?").bind(e.envelope_id).run();
    expect((await links(t.key, e.envelope_id)).body.data.signers[0].status).toBe("viewed");
  });

  it("points KBA envelopes' links at the signing host", async () => {
    const t = await newTenant();
    const e = await kbaEnvelope(t.key, t.orgId);
    await sendEnvelope(t.key, e.envelope_id);
    const [link] = (await links(t.key, e.envelope_id)).body.data.signers;
    expect(link.embed_url).toBe(`${env.SIGNING_HOST}/s/${link.slug}`);
  });

  it("answers 409 naming the status before the envelope is sent, and for paper envelopes", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    const res = await links(t.key, e.envelope_id);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "Signing links exist once the envelope has been sent; this one is pending", details: { status: "pending" }, code: "conflict" });
    const paper = await createEnvelope(t.key, { document_source: "upload" });
    expect((await links(t.key, paper.envelope_id)).status).toBe(409);
  });

  it("needs envelopes:read, and answers 404 across organizations", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    await sendEnvelope(t.key, e.envelope_id);
    const signer = await newKey(t.orgId, ["esign:write"]);
    const denied = await links(signer.key, e.envelope_id);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("Missing required scope: envelopes:read");
    const reader = await newKey(t.orgId, ["envelopes:read"]);
    expect((await links(reader.key, e.envelope_id)).status).toBe(200);
    const other = await newTenant();
    const foreign = await links(other.key, e.envelope_id);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain("/s/");
  });
});
