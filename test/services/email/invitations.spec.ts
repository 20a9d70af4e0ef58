import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { inOrg, onShardOf, systemContext } from "../../../src/lib/context";
import { inviteNextSigners } from "../../../src/services/email/invite-next-signers";
import { renderInvitation } from "../../../src/services/email/invitation";
import { call, newTenant } from "../../helpers/api";
import { invitationSlug, outboxOf, sendableEnvelope, sendEnvelope } from "../../helpers/signing";
import { shardDbOf } from "../../helpers/shards";

/** A job's context on the shard of the envelope it acts on. */
const ctx = (envelopeId: string) => onShardOf(systemContext(env, () => {}), envelopeId);
const complete = (envelopeId: string, email: string) =>
  shardDbOf(envelopeId).prepare("UPDATE signers SET status = 'completed', signed_at = ? WHERE envelope_id = ? AND email = ?").bind(new Date().toISOString(), envelopeId, email).run();

/** Buyer and co-buyer sign in parallel (order 1), then the dealer (order 2). */
async function sentInOrders(sendEmail = true) {
  const t = await newTenant();
  const e = await sendableEnvelope(t.key, ["buyer", "co_buyer", "dealer"]);
  const res = await sendEnvelope(t.key, e.envelope_id, {
    send_email: sendEmail,
    signers: [
      { role: "buyer", email: "jane@example.com", name: "Jane", routing_order: 1 },
      { role: "co_buyer", email: "john@example.com", name: "John", routing_order: 1 },
      { role: "dealer", email: "dealer@example.com", name: "Dealer", routing_order: 2 },
    ],
  });
  expect(res.status).toBe(200);
  return { t, envelopeId: e.envelope_id as string, links: res.body.data.signers as { email: string; embed_url: string }[] };
}

describe("invitations by routing order (inviteNextSigners, for the signing flow)", () => {
  it("invites the next order only once every signer of the previous one has completed, and only once", async () => {
    const { t, envelopeId, links } = await sentInOrders();
    const next = () => inviteNextSigners(inOrg(ctx(envelopeId), t.orgId), { envelopeId });
    expect(await next()).toEqual([]); // the first order was invited by the send
    await complete(envelopeId, "jane@example.com");
    expect(await next()).toEqual([]); // John has not signed yet
    await complete(envelopeId, "john@example.com");
    const [queued, again] = await Promise.all([next(), next()]);
    expect([...queued, ...again].map((m) => m.to.email)).toEqual(["dealer@example.com"]);
    expect(await next()).toEqual([]);
    const outbox = await outboxOf(envelopeId);
    expect(outbox.map((m) => m.to_email)).toEqual(["jane@example.com", "john@example.com", "dealer@example.com"]);
    // the dealer's permanent link is minted with the invitation: not the send's 15-minute session, and
    // the one email that went out still opens the dealer's page (the racing call stored no other)
    const dealerSlug = await invitationSlug(envelopeId, "dealer@example.com");
    expect(links.find((l) => l.email === "dealer@example.com")!.embed_url).not.toContain(dealerSlug);
    expect(outbox[2]).toMatchObject({ status: "queued" });
    expect(outbox[2]!.text).toContain(outbox[2]!.link_url); // withheld at rest (test/hardening/email-links-at-rest.spec.ts)
    const page = await call("GET", `/signing/${dealerSlug}`);
    expect(page.status).toBe(200);
    expect(page.body.data.signer.email).toBe("dealer@example.com");
  });

  it("invites nobody for an envelope sent without email, after a decline, or once it is no longer open", async () => {
    const quiet = await sentInOrders(false);
    await complete(quiet.envelopeId, "jane@example.com");
    await complete(quiet.envelopeId, "john@example.com");
    expect(await inviteNextSigners(inOrg(ctx(quiet.envelopeId), quiet.t.orgId), { envelopeId: quiet.envelopeId })).toEqual([]);
    expect(await outboxOf(quiet.envelopeId)).toEqual([]);

    const declined = await sentInOrders();
    await complete(declined.envelopeId, "jane@example.com");
    await shardDbOf(declined.envelopeId).prepare("UPDATE signers SET status = 'declined' WHERE envelope_id = ? AND email = 'john@example.com'").bind(declined.envelopeId).run();
    expect(await inviteNextSigners(inOrg(ctx(declined.envelopeId), declined.t.orgId), { envelopeId: declined.envelopeId })).toEqual([]);

    const voided = await sentInOrders();
    await call("POST", `/partner/envelopes/${voided.envelopeId}/void`, { key: voided.t.key, body: { reason: "x" } });
    await complete(voided.envelopeId, "jane@example.com");
    await complete(voided.envelopeId, "john@example.com");
    expect(await inviteNextSigners(inOrg(ctx(voided.envelopeId), voided.t.orgId), { envelopeId: voided.envelopeId })).toEqual([]);
    expect(await outboxOf(voided.envelopeId)).toHaveLength(2);
  });

  it("does not reach another organization's envelope", async () => {
    const { envelopeId } = await sentInOrders();
    const other = await newTenant();
    await expect(inviteNextSigners(inOrg(ctx(envelopeId), other.orgId), { envelopeId })).rejects.toThrow("Envelope not found");
  });
});

describe("the invitation email", () => {
  const invitation = { orgName: "First Auto Finance", envelopeName: 'Contract <b>"#1"</b>', signerName: "Jane & Co", role: "buyer", url: "https://embed.example.com/s/abc", expiresAt: "2026-12-24T10:00:00.000Z", kba: false };

  it("names the sender, the document, the role, the link and its expiry", () => {
    const mail = renderInvitation(invitation);
    expect(mail.subject).toBe('First Auto Finance sent you "Contract <b>"#1"</b>" to sign');
    expect(mail.text).toBe(
      [
        "Hello Jane & Co,",
        "",
        'First Auto Finance has sent you "Contract <b>"#1"</b>" to sign (as buyer).',
        "",
        "Review and sign: https://embed.example.com/s/abc",
        "",
        "This link is personal to you: do not forward it. It can be used until 2026-12-24 (UTC).",
        "",
      ].join("\n"),
    );
    expect(renderInvitation({ ...invitation, kba: true }).text).toMatch(/questions that confirm your identity/);
  });

  it("escapes everything the sender typed in the HTML part", () => {
    const { html } = renderInvitation(invitation);
    expect(html).not.toContain("<b>");
    expect(html).toContain("Contract &#60;b&#62;&#34;#1&#34;&#60;/b&#62;");
    expect(html).toContain("Hello Jane &#38; Co,");
    expect(html).toContain('href="https://embed.example.com/s/abc"');
  });
});
