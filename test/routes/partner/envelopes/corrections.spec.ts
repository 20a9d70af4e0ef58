import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { openOutboxEmail } from "../../../../src/services/email/outbox";
import { call, newKey, newTenant } from "../../../helpers/api";
import { auditOf, kbaStep, sentKbaEnvelope, takeKba, usageLinesOf } from "../../../helpers/kba";
import { invitationSlug, outboxOf, sendableEnvelope, sendEnvelope, signerRows } from "../../../helpers/signing";
import { signing } from "../../../helpers/signing-flow";
import { shardDbOf } from "../../../helpers/shards";

const resend = (key: string, envelopeId: string, signerId: string) => call("POST", `/partner/envelopes/${envelopeId}/signers/${signerId}/resend`, { key });
const correct = (key: string, envelopeId: string, signerId: string, body: unknown) => call("PATCH", `/partner/envelopes/${envelopeId}/signers/${signerId}`, { key, body });

/** The permanent slug of the newest invitation emailed to `email` for the envelope (the only place it exists). */
async function newestInvitationSlug(envelopeId: string, email: string): Promise<string> {
  const rows = (await outboxOf(envelopeId)).filter((m) => m.kind === "invitation" && m.to_email === email);
  const newest = rows.at(-1);
  if (!newest) throw new Error(`no invitation to ${email}`);
  const opened = await openOutboxEmail(env, newest);
  return new URL(opened!.linkUrl!).pathname.split("/").pop()!;
}

/** A sent one-signer envelope: its permanent slug (from the email), a signing session and the signer id. */
async function sentEnvelope(roles = ["buyer"], signers?: Record<string, unknown>[]) {
  const t = await newTenant();
  const e = await sendableEnvelope(t.key, roles);
  const sent = await sendEnvelope(t.key, e.envelope_id, signers ? { signers } : { signers: [{ role: "buyer", email: "jane@example.com", name: "Jane Buyer" }] });
  expect(sent.status).toBe(200);
  const buyer = sent.body.data.signers.find((s: { role: string }) => s.role === "buyer");
  return { ...t, envelopeId: e.envelope_id as string, signerId: buyer.signer_id as string, session: buyer.slug as string, slug: await invitationSlug(e.envelope_id, buyer.email), sent: sent.body.data };
}

describe("signer_id on signing links", () => {
  it("names each signer in the send's answer and in GET …/signing-links", async () => {
    const e = await sentEnvelope();
    expect(e.signerId).toMatch(/^sgn_/);
    const links = await call("GET", `/partner/envelopes/${e.envelopeId}/signing-links`, { key: e.key });
    expect(links.body.data.signers.map((s: { signer_id: string }) => s.signer_id)).toEqual([e.signerId]);
    expect((await signerRows(e.envelopeId))[0]!.id).toBe(e.signerId);
  });
});

describe("POST /partner/envelopes/:id/signers/:signer_id/resend", () => {
  it("emails a new invitation whose link works, kills the old link and older sessions, and records it", async () => {
    const e = await sentEnvelope();
    expect((await signing("GET", e.slug)).status).toBe(200);
    const res = await resend(e.key, e.envelopeId, e.signerId);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ signer_id: e.signerId, email: "jane@example.com", invitation_sent: true, status: "pending" });
    const invitations = (await outboxOf(e.envelopeId)).filter((m) => m.kind === "invitation" && m.to_email === "jane@example.com");
    expect(invitations).toHaveLength(2);
    const fresh = await newestInvitationSlug(e.envelopeId, "jane@example.com");
    expect(fresh).not.toBe(e.slug);
    expect((await signing("GET", fresh)).status).toBe(200);
    expect((await signing("GET", e.slug)).status).toBe(404);
    expect((await signing("GET", e.session)).status).toBe(404);
    // a link handed out after the re-send works
    const links = await call("GET", `/partner/envelopes/${e.envelopeId}/signing-links`, { key: e.key });
    expect((await signing("GET", links.body.data.signers[0].slug)).status).toBe(200);
    const entry = (await auditOf(e.envelopeId)).find((a) => a.action === "signer.invitation_resent");
    expect(entry?.data.signer).toMatchObject({ id: e.signerId, email: "jane@example.com" });
  });

  it("answers 429 with Retry-After within 10 minutes of the last re-send, and sends again after", async () => {
    const e = await sentEnvelope();
    expect((await resend(e.key, e.envelopeId, e.signerId)).status).toBe(200);
    const again = await resend(e.key, e.envelopeId, e.signerId);
    expect(again.status).toBe(429);
    const retryAfter = Number(again.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(590);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(again.body.details.retry_after).toBe(retryAfter);
    expect((await outboxOf(e.envelopeId)).filter((m) => m.kind === "invitation")).toHaveLength(2);
    // ten minutes later
    const past = new Date(Date.now() - 10 * 60 * 1000 - 1000).toISOString();
    await shardDbOf(e.envelopeId).prepare("UPDATE signers SET last_resent_at = ? WHERE id = ?").bind(past, e.signerId).run();
    expect((await resend(e.key, e.envelopeId, e.signerId)).status).toBe(200);
    expect((await outboxOf(e.envelopeId)).filter((m) => m.kind === "invitation")).toHaveLength(3);
  });

  it("answers 409 for a signer whose turn has not come, a finished signer and a closed envelope", async () => {
    const e = await sentEnvelope(["buyer", "dealer"], [
      { role: "buyer", email: "jane@example.com", name: "Jane", routing_order: 1 },
      { role: "dealer", email: "dealer@example.com", name: "Dealer", routing_order: 2 },
    ]);
    const dealer = e.sent.signers.find((s: { role: string }) => s.role === "dealer").signer_id;
    const notYet = await resend(e.key, e.envelopeId, dealer);
    expect(notYet.status).toBe(409);
    expect(notYet.body.code).toBe("not_signers_turn");
    await shardDbOf(e.envelopeId).prepare("UPDATE signers SET status = 'completed' WHERE id = ?").bind(e.signerId).run();
    const finished = await resend(e.key, e.envelopeId, e.signerId);
    expect(finished.status).toBe(409);
    expect(finished.body.code).toBe("signer_finished");
    expect((await call("POST", `/partner/envelopes/${e.envelopeId}/void`, { key: e.key, body: { reason: "wrong deal" } })).status).toBe(200);
    const closed = await resend(e.key, e.envelopeId, dealer);
    expect(closed.status).toBe(409);
    expect(closed.body.code).toBe("envelope_closed");
    expect((await outboxOf(e.envelopeId)).filter((m) => m.kind === "invitation")).toHaveLength(1);
  });

  it("answers 404 across organizations and for an unknown or another envelope's signer, and 403 without esign:write", async () => {
    const e = await sentEnvelope();
    const other = await sentEnvelope();
    expect((await resend(other.key, e.envelopeId, e.signerId)).status).toBe(404);
    expect((await resend(e.key, e.envelopeId, other.signerId)).status).toBe(404);
    expect((await resend(e.key, e.envelopeId, "sgn_nobody")).status).toBe(404);
    const { key: readOnly } = await newKey(e.orgId, ["envelopes:read"]);
    expect((await resend(readOnly, e.envelopeId, e.signerId)).status).toBe(403);
    expect((await outboxOf(e.envelopeId)).filter((m) => m.kind === "invitation")).toHaveLength(1);
  });
});

describe("PATCH /partner/envelopes/:id/signers/:signer_id", () => {
  it("corrects the email: old link and sessions dead at once, a new invitation to the new address, an audit entry naming the change", async () => {
    const e = await sentEnvelope();
    const res = await correct(e.key, e.envelopeId, e.signerId, { email: "jane.doe@example.net", phone: "+15551234567" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ signer_id: e.signerId, email: "jane.doe@example.net", name: "Jane Buyer", phone: "+15551234567", invitation_sent: true });
    expect((await signing("GET", e.slug)).status).toBe(404);
    expect((await signing("GET", e.session)).status).toBe(404);
    const fresh = await newestInvitationSlug(e.envelopeId, "jane.doe@example.net");
    const page = await signing("GET", fresh);
    expect(page.status).toBe(200);
    const links = await call("GET", `/partner/envelopes/${e.envelopeId}/signing-links`, { key: e.key });
    expect(links.body.data.signers[0]).toMatchObject({ signer_id: e.signerId, email: "jane.doe@example.net" });
    const entry = (await auditOf(e.envelopeId)).find((a) => a.action === "signer.corrected");
    expect(entry?.data.changes).toEqual({ email: { from: "jane@example.com", to: "jane.doe@example.net" }, phone: { from: null, to: "+15551234567" } });
    expect(entry?.actor_type).toBe("api_key");
  });

  it("starts KBA over for a challenged signer: no attempt used, the old link's KBA step gone", async () => {
    const k = await sentKbaEnvelope();
    const signerId = k.sent.signers.find((s: { role: string }) => s.role === "buyer").signer_id;
    const slug = await invitationSlug(k.envelopeId, k.buyerEmail);
    expect((await takeKba(slug, k.buyerEmail, { wrong: true })).res.status).toBe(200);
    expect(await shardDbOf(k.envelopeId).prepare("SELECT status, attempts_used FROM kba_checks WHERE signer_id = ?").bind(signerId).first()).toEqual({ status: "required", attempts_used: 1 });
    const res = await correct(k.key, k.envelopeId, signerId, { name: "Jane Q. Buyer" });
    expect(res.status).toBe(200);
    expect(await shardDbOf(k.envelopeId).prepare("SELECT status, attempts_used FROM kba_checks WHERE signer_id = ?").bind(signerId).first()).toEqual({ status: "required", attempts_used: 0 });
    expect((await signing("GET", slug, "kba")).status).toBe(404);
    // a second wrong set would have been the last attempt; after the correction it is the first
    const fresh = await newestInvitationSlug(k.envelopeId, k.buyerEmail);
    expect((await takeKba(fresh, k.buyerEmail, { wrong: true })).res.status).toBe(200);
    expect(await shardDbOf(k.envelopeId).prepare("SELECT status, attempts_used FROM kba_checks WHERE signer_id = ?").bind(signerId).first()).toEqual({ status: "required", attempts_used: 1 });
    const entry = (await auditOf(k.envelopeId)).find((a) => a.action === "signer.corrected");
    expect(entry?.data).toMatchObject({ changes: { name: { from: "Jane Buyer", to: "Jane Q. Buyer" } }, kba_restarted: true });
  });

  it("makes a signer who had passed KBA verify again: one result, the new verification billed", async () => {
    const k = await sentKbaEnvelope();
    const signerId = k.sent.signers.find((s: { role: string }) => s.role === "buyer").signer_id;
    expect((await takeKba(await invitationSlug(k.envelopeId, k.buyerEmail), k.buyerEmail)).res.status).toBe(200);
    expect((await correct(k.key, k.envelopeId, signerId, { email: "jane.other@example.com" })).status).toBe(200);
    expect(await shardDbOf(k.envelopeId).prepare("SELECT status FROM kba_checks WHERE signer_id = ?").bind(signerId).first()).toEqual({ status: "required" });
    const fresh = await newestInvitationSlug(k.envelopeId, "jane.other@example.com");
    expect((await signing("GET", fresh, "document")).status).toBe(403);
    expect((await takeKba(fresh, "jane.other@example.com")).res.status).toBe(200);
    const results = await shardDbOf(k.envelopeId).prepare("SELECT status, signer_email FROM kba_results WHERE signer_id = ?").bind(signerId).all();
    expect(results.results).toEqual([{ status: "passed", signer_email: "jane.other@example.com" }]);
    expect((await usageLinesOf(k.orgId)).filter((l) => l.kind === "kba_verification")).toHaveLength(2);
  });

  it("settles a challenged signer's open question set: the new link gets a new one", async () => {
    const k = await sentKbaEnvelope();
    const signerId = k.sent.signers.find((s: { role: string }) => s.role === "buyer").signer_id;
    const slug = await invitationSlug(k.envelopeId, k.buyerEmail);
    const open = await kbaStep(slug);
    const oldSet = open.body.data.session.session_id;
    expect((await correct(k.key, k.envelopeId, signerId, { email: "jane.new@example.com" })).status).toBe(200);
    expect(await shardDbOf(k.envelopeId).prepare("SELECT status FROM kba_sessions WHERE id = ?").bind(oldSet).first()).toEqual({ status: "expired" });
    const step = await kbaStep(await newestInvitationSlug(k.envelopeId, "jane.new@example.com"));
    expect(step.status).toBe(200);
    expect(step.body.data.session.session_id).not.toBe(oldSet);
  });

  it("corrects a later signer without emailing them before their turn", async () => {
    const e = await sentEnvelope(["buyer", "dealer"], [
      { role: "buyer", email: "jane@example.com", name: "Jane", routing_order: 1 },
      { role: "dealer", email: "dealer@example.com", name: "Dealer", routing_order: 2 },
    ]);
    const dealer = e.sent.signers.find((s: { role: string }) => s.role === "dealer").signer_id;
    const res = await correct(e.key, e.envelopeId, dealer, { email: "finance@dealer.example" });
    expect(res.status).toBe(200);
    expect(res.body.data.invitation_sent).toBe(false);
    expect((await outboxOf(e.envelopeId)).map((m) => m.to_email)).toEqual(["jane@example.com"]);
  });

  it("answers 422 for bad fields or none, 409 for a finished signer or closed envelope, 404 across organizations", async () => {
    const e = await sentEnvelope();
    for (const body of [{}, { email: "not-an-email" }, { phone: "555-1234" }, { name: "" }, { name: 7 }]) {
      const res = await correct(e.key, e.envelopeId, e.signerId, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const other = await newTenant();
    expect((await correct(other.key, e.envelopeId, e.signerId, { name: "X" })).status).toBe(404);
    expect((await correct(e.key, e.envelopeId, "sgn_nobody", { name: "X" })).status).toBe(404);
    await shardDbOf(e.envelopeId).prepare("UPDATE signers SET status = 'declined' WHERE id = ?").bind(e.signerId).run();
    const finished = await correct(e.key, e.envelopeId, e.signerId, { name: "X" });
    expect(finished.status).toBe(409);
    expect(finished.body.code).toBe("signer_finished");
    await shardDbOf(e.envelopeId).prepare("UPDATE signers SET status = 'pending' WHERE id = ?").bind(e.signerId).run();
    expect((await call("POST", `/partner/envelopes/${e.envelopeId}/void`, { key: e.key, body: { reason: "wrong deal" } })).status).toBe(200);
    expect((await correct(e.key, e.envelopeId, e.signerId, { name: "X" })).status).toBe(409);
    // nothing changed, the original link is the only invitation
    expect((await signerRows(e.envelopeId))[0]).toMatchObject({ name: "Jane Buyer", email: "jane@example.com" });
    expect((await outboxOf(e.envelopeId)).filter((m) => m.kind === "invitation")).toHaveLength(1);
  });
});
