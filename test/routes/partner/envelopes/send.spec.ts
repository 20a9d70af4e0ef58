import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createEnvelope, newKey, newTenant } from "../../../helpers/api";
import { eventsOf, invitationSlug, kbaEnvelope, outboxOf, sendableEnvelope, sendEnvelope, signerRows } from "../../../helpers/signing";
import { buildPdf, send } from "../../../helpers/templates";
import { tenantWithEndpoint, waitForRequests } from "../../../helpers/webhooks";
import { shardDbOf } from "../../../helpers/shards";

const DAY = 86_400_000;
const SLUG = /^(?:[1-9][0-9]{0,3}_)?[0-9abcdefghjkmnpqrstvwxyz]{26}$/; // its shard's number, then 128 bits in Crockford base32

async function auditActions(envelopeId: string) {
  const { results } = await shardDbOf(envelopeId).prepare("SELECT action, data FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(envelopeId).all<{ action: string; data: string }>();
  return results;
}

async function putDocument(key: string, envelopeId: string, text: string) {
  const form = new FormData();
  form.append("file", new File([(await buildPdf([{ lines: [{ text, x: 72, y: 700 }] }])).bytes], "c.pdf", { type: "application/pdf" }));
  return send("PUT", `/partner/envelopes/${envelopeId}/document`, key, form);
}

describe("POST /partner/envelopes/:id/send", () => {
  it("sends a single-role envelope to its customer: pending -> preparing -> sent, links, event, invitation, expiry", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key, ["buyer"], { customer_email: "Jane.Doe@Example.com", customer_name: "Jane Doe", expires_in_days: 5 });
    const before = Date.now();
    const res = await sendEnvelope(t.key, e.envelope_id);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({ envelope_id: e.envelope_id, status: "sent", customer_id: e.customer_id });
    expect(Date.parse(data.expires_at) - before).toBeGreaterThanOrEqual(5 * DAY - 1000);
    expect(Date.parse(data.expires_at) - before).toBeLessThan(5 * DAY + 60_000);
    expect(data.signers).toHaveLength(1);
    const [link] = data.signers;
    expect(link).toMatchObject({ email: "Jane.Doe@Example.com", name: "Jane Doe", role: "buyer", routing_order: 1, status: "pending" });
    // the response holds a 15-minute signing session; the permanent slug is only in the invitation
    expect(link.slug).toMatch(/^es_/);
    expect(link.embed_url).toBe(`${env.EMBED_HOST}/s/${link.slug}`);
    expect(Date.parse(link.expires_at) - before).toBeLessThanOrEqual(15 * 60_000 + 60_000);

    expect((await auditActions(e.envelope_id)).map((a) => a.action)).toEqual(["envelope.created", "envelope.prepare", "envelope.send"]);
    const events = await eventsOf(e.envelope_id);
    expect(events.map((ev) => ev.type)).toEqual(["envelope.created", "envelope.sent"]);
    expect(events[1]!.data).toMatchObject({
      envelope_id: e.envelope_id,
      status: "sent",
      customer_id: e.customer_id,
      send_email: true,
      expires_at: data.expires_at,
      signers: [{ role: "buyer", email: "Jane.Doe@Example.com", name: "Jane Doe", routing_order: 1 }],
    });
    // The slug is the signer's credential: it is in no event and no audit entry.
    const audit = JSON.stringify(await auditActions(e.envelope_id));
    expect(JSON.stringify(events)).not.toContain(link.slug);
    expect(audit).not.toContain(link.slug);

    const emails = await outboxOf(e.envelope_id);
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({ to_email: "Jane.Doe@Example.com", to_name: "Jane Doe", kind: "invitation", status: "queued" });
    const permanent = await invitationSlug(e.envelope_id, "Jane.Doe@Example.com");
    expect(permanent).toMatch(SLUG);
    // the outbox shows the link withheld; the permanent one is sealed beside it (test/hardening/email-links-at-rest.spec.ts)
    expect(emails[0]!.link_url).toBe(`${env.EMBED_HOST}/s/[slug]`);
    expect(emails[0]!.text).toContain(emails[0]!.link_url);
    expect(JSON.stringify(events)).not.toContain(permanent);
    expect(audit).not.toContain(permanent);
    expect(JSON.stringify(data)).not.toContain(permanent);

    const get = await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key });
    expect(get.body.data).toMatchObject({ status: "sent", expires_at: data.expires_at });
  });

  it("signs in routing order: an omitted order is the signer's position; equal orders are invited together", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key, ["buyer", "co_buyer", "dealer"]);
    const res = await sendEnvelope(t.key, e.envelope_id, {
      signers: [
        { role: "buyer", email: "jane@example.com", name: "Jane" },
        { role: "co_buyer", email: "john@example.com", name: "John", routing_order: 1 },
        { role: "dealer", email: "dealer@example.com", name: "Dealer", routing_order: 2 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.signers.map((s: { role: string; routing_order: number }) => [s.role, s.routing_order])).toEqual([["buyer", 1], ["co_buyer", 1], ["dealer", 2]]);
    expect((await outboxOf(e.envelope_id)).map((m) => m.to_email)).toEqual(["jane@example.com", "john@example.com"]);

    const plain = await sendableEnvelope(t.key, ["buyer", "co_buyer"]);
    const seq = await sendEnvelope(t.key, plain.envelope_id, {
      signers: [
        { role: "co_buyer", email: "b@example.com", name: "B" },
        { role: "buyer", email: "a@example.com", name: "A" },
      ],
    });
    expect(seq.body.data.signers.map((s: { role: string; routing_order: number }) => [s.role, s.routing_order])).toEqual([["co_buyer", 1], ["buyer", 2]]);
    expect((await outboxOf(plain.envelope_id)).map((m) => m.to_email)).toEqual(["b@example.com"]);
    const slugs = [...res.body.data.signers, ...seq.body.data.signers].map((s: { slug: string }) => s.slug);
    expect(new Set(slugs).size).toBe(5);
  });

  it("with send_email false queues no email and still returns the links", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    const res = await sendEnvelope(t.key, e.envelope_id, { send_email: false });
    expect(res.status).toBe(200);
    expect(res.body.data.signers[0].embed_url).toMatch(/\/s\/es_[A-Za-z0-9_-]+$/);
    expect(await outboxOf(e.envelope_id)).toEqual([]);
    expect((await eventsOf(e.envelope_id))[1]!.data.send_email).toBe(false);
  });

  it("answers 422 naming the roles when several are used and no signers are given, and writes nothing", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key, ["buyer", "co_buyer"]);
    const res = await sendEnvelope(t.key, e.envelope_id);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("The envelope's fields name several roles (buyer, co_buyer): name a signer for each in signers");
    expect(res.body.details[0]).toMatchObject({ path: ["signers"], expected: "one signer per role: buyer, co_buyer" });
    expect(await signerRows(e.envelope_id)).toEqual([]);
    expect((await eventsOf(e.envelope_id)).map((ev) => ev.type)).toEqual(["envelope.created"]);
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key })).body.data.status).toBe("pending");
  });

  it("answers 422 when the signers do not match the fields' roles: unknown, repeated and missing roles", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key, ["buyer", "co_buyer"]);
    const res = await sendEnvelope(t.key, e.envelope_id, {
      signers: [
        { role: "buyer", email: "a@example.com", name: "A" },
        { role: "lender", email: "l@example.com", name: "L" },
        { role: "buyer", email: "c@example.com", name: "C" },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("The signers do not match the envelope's roles");
    expect(res.body.details.map((d: { path: unknown[]; message: string }) => [d.path.join("."), d.message])).toEqual([
      ["signers.1.role", 'The envelope\'s fields have no role "lender"'],
      ["signers.2.role", 'Role "buyer" is already signed by signers[0]'],
      ["signers", 'No signer for role "co_buyer"'],
    ]);
    expect(await outboxOf(e.envelope_id)).toEqual([]);
  });

  it("validates the body: signer emails, names, routing orders, send_email", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    const bad = await sendEnvelope(t.key, e.envelope_id, { send_email: "yes", signers: [{ role: "buyer", email: "nope", name: "", routing_order: 0 }] });
    expect(bad.status).toBe(422);
    expect(bad.body.details.map((d: { path: unknown[] }) => d.path.join(".")).sort()).toEqual(["send_email", "signers.0.email", "signers.0.name", "signers.0.routing_order"]);
    expect((await sendEnvelope(t.key, e.envelope_id, { signers: [] })).status).toBe(422);
  });

  it("refuses an envelope without a document, or whose document has no fields (422)", async () => {
    const t = await newTenant();
    const bare = await createEnvelope(t.key);
    const noDoc = await sendEnvelope(t.key, bare.envelope_id, { signers: [{ role: "buyer", email: "a@example.com", name: "A" }] });
    expect(noDoc.status).toBe(422);
    expect(noDoc.body.error).toBe("The envelope has no document to sign: attach one before sending");
    expect(noDoc.body.details).toEqual([expect.objectContaining({ path: ["document"] })]);
    expect((await putDocument(t.key, bare.envelope_id, "A contract without tags")).status).toBe(200);
    const noFields = await sendEnvelope(t.key, bare.envelope_id);
    expect(noFields.status).toBe(422);
    expect(noFields.body.error).toMatch(/^The envelope has no fields to sign/);
  });

  it("sends an uploaded envelope whose fields came from the document's tags", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    expect((await putDocument(t.key, e.envelope_id, "Sign {{sig;type=signature;role=borrower;required=true}}")).status).toBe(200);
    const res = await sendEnvelope(t.key, e.envelope_id, { signers: [{ role: "borrower", email: "b@example.com", name: "Borrower" }] });
    expect(res.status).toBe(200);
    expect((await auditActions(e.envelope_id)).map((a) => a.action)).toEqual(["envelope.created", "envelope.attach_document", "envelope.prepare", "envelope.send"]);
  });

  it("sends an envelope already in preparing (bulk send's state) with the send move only", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = 'preparing' WHERE id = ?").bind(e.envelope_id).run();
    const res = await sendEnvelope(t.key, e.envelope_id);
    expect(res.status).toBe(200);
    expect((await auditActions(e.envelope_id)).map((a) => a.action)).toEqual(["envelope.created", "envelope.send"]);
  });

  it("answers 422 naming the status once sent, voided or completed; 409 for paper envelopes", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    expect((await sendEnvelope(t.key, e.envelope_id)).status).toBe(200);
    const again = await sendEnvelope(t.key, e.envelope_id);
    expect(again.status).toBe(422);
    expect(again.body.error).toBe("Cannot send an envelope with status sent");
    expect(await signerRows(e.envelope_id)).toHaveLength(1);

    const v = await sendableEnvelope(t.key);
    await call("POST", `/partner/envelopes/${v.envelope_id}/void`, { key: t.key, body: { reason: "x" } });
    expect((await sendEnvelope(t.key, v.envelope_id)).body.error).toBe("Cannot send an envelope with status voided");

    const paper = await createEnvelope(t.key, { document_source: "upload" });
    const res = await sendEnvelope(t.key, paper.envelope_id);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/vault-in-upload/);
  });

  it("KBA envelopes: send_email false is 422; by email the links and the invitation point at the signing host", async () => {
    const t = await newTenant();
    const e = await kbaEnvelope(t.key, t.orgId);
    const refused = await sendEnvelope(t.key, e.envelope_id, { send_email: false });
    expect(refused.status).toBe(422);
    expect(refused.body.details[0]).toMatchObject({ path: ["send_email"] });
    expect(await signerRows(e.envelope_id)).toEqual([]);

    const res = await sendEnvelope(t.key, e.envelope_id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kba_required: true, provider_instance: "cloud", status: "sent" });
    const url = res.body.data.signers[0].embed_url as string;
    expect(url).toBe(`${env.SIGNING_HOST}/s/${res.body.data.signers[0].slug}`);
    const [mail] = await outboxOf(e.envelope_id);
    expect(mail!.link_url).toBe(`${env.SIGNING_HOST}/s/[slug]`);
    expect(await invitationSlug(e.envelope_id, mail!.to_email)).toMatch(SLUG);
    expect(mail!.text).toMatch(/confirm your identity/);
  });

  it("lets exactly one of concurrent sends through", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    const results = await Promise.all([1, 2, 3].map(() => sendEnvelope(t.key, e.envelope_id)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) expect([409, 422]).toContain(r.status);
    expect(await signerRows(e.envelope_id)).toHaveLength(1);
    expect(await outboxOf(e.envelope_id)).toHaveLength(1);
    expect((await eventsOf(e.envelope_id)).filter((ev) => ev.type === "envelope.sent")).toHaveLength(1);
  });

  it("replays the first answer for a repeated Idempotency-Key", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    const headers = { "Idempotency-Key": `send-${e.envelope_id}` };
    const first = await call("POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: {}, headers });
    const second = await call("POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: {}, headers });
    expect(second.status).toBe(200);
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    expect(second.body).toEqual(first.body);
  });

  it("needs esign:write, and answers 404 for another organization's envelope", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    const writer = await newKey(t.orgId, ["envelopes:read", "envelopes:write"]);
    const denied = await sendEnvelope(writer.key, e.envelope_id);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("Missing required scope: esign:write");
    const other = await newTenant();
    expect((await sendEnvelope(other.key, e.envelope_id)).status).toBe(404);
    expect(await signerRows(e.envelope_id)).toEqual([]);
  });

  it("delivers envelope.sent to the organization's webhook endpoints", async () => {
    const { t, target } = await tenantWithEndpoint("ok", ["envelope.sent"]);
    const e = await sendableEnvelope(t.key);
    expect((await sendEnvelope(t.key, e.envelope_id)).status).toBe(200);
    const [delivery] = await waitForRequests(target.path, 1);
    const payload = JSON.parse(delivery!.body);
    expect(payload).toMatchObject({ event_type: "envelope.sent", envelope_id: e.envelope_id, data: { status: "sent", signers: [{ role: "buyer" }] } });
  });
});
