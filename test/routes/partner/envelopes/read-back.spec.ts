import { describe, expect, it } from "vitest";
import { addDays } from "../../../../src/lib/time";
import { shardOf } from "../../../../src/lib/shards";
import { call, createEnvelope, newTenant, operator } from "../../../helpers/api";
import { takeKba } from "../../../helpers/kba";
import { payFor, payingTenant, sentPayEnvelope, sign } from "../../../helpers/payments";
import { signing, TINY_PNG } from "../../../helpers/signing-flow";
import { countedCall } from "../../../helpers/statement-budget";
import { consoleTemplate } from "../../../helpers/templates";
import { adminToken } from "../../../helpers/webhooks";

const CC = [{ name: "Dealer Desk", email: "contracts@dealer.example" }];
const DISCLOSURE = {
  required: true,
  text: "Prairie Auto Finance: consent to electronic records.",
  paper_copy_contact: "Call (555) 010-2000.",
  withdrawal_instructions: "Choose Withdraw consent.",
};
const SIGN = (role: string) => `Sign {{${role}_signature;type=signature;role=${role};required=true}}`;

const read = async (key: string, envelopeId: string) => {
  const res = await call("GET", `/partner/envelopes/${envelopeId}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

/**
 * A paying tenant that asks for E-SIGN consent (disclosure version 1), a KBA template with a buyer and a
 * dealer role, and a member of the organization (the dealer) who sends from the console: the sender added
 * as a signer is never challenged, so KBA applies to the buyer only.
 */
async function routedKbaPayEnvelope() {
  const t = await payingTenant();
  const admin = await adminToken(t.orgId);
  expect((await call("PUT", "/org/esign-disclosure", { bearer: admin, body: DISCLOSURE })).status).toBe(200);
  const template = await consoleTemplate(admin, { kba: true, pages: [{ lines: [{ text: SIGN("buyer"), x: 72, y: 700 }, { text: SIGN("dealer"), x: 72, y: 600 }] }] });
  const dealerEmail = `dealer.${crypto.randomUUID().slice(0, 8)}@prairie.example`;
  const user = await operator("POST", `/orgs/${t.orgId}/users`, { email: dealerEmail, name: "Dana Dealer", role: "member" });
  const dealerToken = (await operator("POST", `/users/${user.body.data.user_id}/access-tokens`, { org_id: t.orgId, ttl_seconds: 3600 })).body.data.access_token as string;
  const buyerEmail = `jane.${crypto.randomUUID().slice(0, 8)}@example.com`;
  const e = await createEnvelope(t.key, {
    template_id: template.template_id,
    customer_email: buyerEmail,
    cc: CC,
    reminder_after_days: 2,
    reminder_every_days: 3,
    payment: { amount_cents: 150_000, currency: "usd", payer_email: buyerEmail },
  });
  return { ...t, envelopeId: e.envelope_id, created: e, dealerToken, buyerEmail, dealerEmail };
}

/** Every entry of the timeline, page by page. */
async function wholeTimeline(key: string, envelopeId: string, limit: number) {
  const entries: any[] = [];
  for (let page = 1; ; page++) {
    const res = await call("GET", `/partner/envelopes/${envelopeId}/events?page=${page}&limit=${limit}`, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.meta).toMatchObject({ page, limit });
    entries.push(...res.body.data);
    if (res.body.data.length < limit) return { entries, total: res.body.meta.total as number };
  }
}

/** Canonical JSON as a partner would write it (sorted keys, no whitespace, undefined members left out), apart from the service's code. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
    .join(",")}}`;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The hash of a timeline entry recomputed from the API's JSON alone, as the route's documentation says. */
const rehash = (e: any) =>
  sha256Hex(
    canonical({
      id: e.id,
      org_id: e.org_id,
      chain_id: e.chain_id,
      seq: e.seq,
      action: e.action,
      actor_type: e.actor.type,
      actor_id: e.actor.id,
      ip: e.actor.ip,
      user_agent: e.actor.user_agent,
      data: e.data,
      created_at: e.at,
      prev_hash: e.prev_hash,
    }),
  );

describe("GET /partner/envelopes/:id reads back what was set (signers, cc, reminders, payment)", () => {
  it("a routed two-signer envelope with cc, reminders, KBA on one signer, consent and Sign + Pay: before sending, after send, as the first signer views and signs, after the second declines", async () => {
    const t = await routedKbaPayEnvelope();

    // before sending: no signers yet (the send attaches them); the schedule and the payment as asked
    const before = await read(t.key, t.envelopeId);
    expect(before).toMatchObject({ status: "pending", cc: CC, kba_required: true, consumer_consent: true, signers: [] });
    expect(before.reminders).toEqual({ after_days: 2, every_days: 3, next_at: null });
    expect(before.payment).toEqual({ status: "requires_payment", amount: 150_000, currency: "usd", payer_email: t.buyerEmail, paid_at: null });
    // the create answers the Envelope shape, which the detail extends
    for (const [k, v] of Object.entries(t.created)) expect(before[k], k).toEqual(v);

    const sent = await call("POST", `/envelopes/${t.envelopeId}/send`, {
      bearer: t.dealerToken,
      body: {
        signers: [
          { role: "buyer", email: t.buyerEmail, name: "Jane Buyer", routing_order: 1 },
          { role: "dealer", email: t.dealerEmail, name: "Dana Dealer", routing_order: 2 },
        ],
      },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const slugOf = (role: string) => sent.body.data.signers.find((s: { role: string }) => s.role === role).slug as string;

    const afterSend = await read(t.key, t.envelopeId);
    expect(afterSend.status).toBe("sent");
    const [buyer, dealer] = afterSend.signers;
    expect(buyer).toMatchObject({
      name: "Jane Buyer",
      email: t.buyerEmail,
      role: "buyer",
      routing_order: 1,
      status: "sent",
      viewed_at: null,
      completed_at: null,
      declined_at: null,
      decline_reason: null,
      consent: { required: true, given_at: null, disclosure_version: 1 },
      kba: { required: true, status: "required" },
    });
    expect(buyer.signer_id).toBe(sent.body.data.signers[0].signer_id);
    expect(Date.parse(buyer.sent_at)).not.toBeNaN();
    // the sender added as a signer is never challenged; it is not yet the dealer's turn
    expect(dealer).toMatchObject({ role: "dealer", routing_order: 2, status: "pending", sent_at: null, kba: { required: false, status: null }, consent: { required: true, given_at: null } });
    expect(afterSend.reminders).toEqual({ after_days: 2, every_days: 3, next_at: addDays(buyer.sent_at, 2) });
    // the send time is the chain's `envelope.send` entry
    const { entries } = await wholeTimeline(t.key, t.envelopeId, 100);
    expect(entries.find((e) => e.action === "envelope.send").at).toBe(buyer.sent_at);
    // signing links are never part of the read
    const text = JSON.stringify(afterSend);
    for (const s of sent.body.data.signers) {
      expect(text).not.toContain(s.slug);
      expect(text).not.toContain(s.signing_url);
    }

    // the buyer verifies, consents and opens the document
    const { res: kba } = await takeKba(slugOf("buyer"), t.buyerEmail);
    expect(kba.status, JSON.stringify(kba.body)).toBe(200);
    expect((await signing("POST", slugOf("buyer"), "consent", { agree: true })).status).toBe(200);
    expect((await signing("POST", slugOf("buyer"), "view")).status).toBe(200);
    const viewed = (await read(t.key, t.envelopeId)).signers[0];
    expect(viewed).toMatchObject({ status: "viewed", kba: { required: true, status: "passed" }, completed_at: null });
    expect(Date.parse(viewed.viewed_at)).not.toBeNaN();
    expect(Date.parse(viewed.consent.given_at)).not.toBeNaN();

    // the buyer signs: their turn is over, the dealer's has come
    const submitted = await signing("POST", slugOf("buyer"), "submit", { values: { buyer_signature: TINY_PNG } });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const signed = await read(t.key, t.envelopeId);
    expect(signed.signers[0].status).toBe("completed");
    expect(Date.parse(signed.signers[0].completed_at)).not.toBeNaN();
    expect(signed.signers[1]).toMatchObject({ status: "sent", sent_at: signed.signers[0].completed_at });
    expect(signed.payment.status).toBe("requires_payment");

    // the dealer declines: the envelope closes, no reminder is due any more
    const declined = await signing("POST", slugOf("dealer"), "decline", { reason: "Terms changed after the deal" });
    expect(declined.status, JSON.stringify(declined.body)).toBe(200);
    const closed = await read(t.key, t.envelopeId);
    expect(closed.status).toBe("declined");
    expect(closed.signers[0].status).toBe("completed");
    expect(closed.signers[1]).toMatchObject({ status: "declined", decline_reason: "Terms changed after the deal" });
    expect(Date.parse(closed.signers[1].declined_at)).toBeGreaterThanOrEqual(Date.parse(closed.signers[1].sent_at));
    expect(closed.reminders).toEqual({ after_days: 2, every_days: 3, next_at: null });
    expect(closed.cc).toEqual(CC);
    // the console reads the same answer
    const consoleRead = await call("GET", `/envelopes/${t.envelopeId}`, { bearer: t.dealerToken });
    expect(consoleRead.status).toBe(200);
    expect(consoleRead.body.data).toEqual(closed);
  }, 120_000);

  it("a later routing order never sent stays pending after an earlier signer declines", async () => {
    const t = await routedKbaPayEnvelope();
    const sent = await call("POST", `/envelopes/${t.envelopeId}/send`, {
      bearer: t.dealerToken,
      body: { signers: [{ role: "buyer", email: t.buyerEmail, name: "Jane Buyer", routing_order: 1 }, { role: "dealer", email: t.dealerEmail, name: "Dana Dealer", routing_order: 2 }] },
    });
    expect(sent.status).toBe(200);
    const buyer = sent.body.data.signers[0].slug as string;
    await takeKba(buyer, t.buyerEmail);
    // refusing consent declines with reason consent_withdrawn
    expect((await signing("POST", buyer, "consent", { agree: false })).status).toBe(200);
    const closed = await read(t.key, t.envelopeId);
    expect(closed.status).toBe("declined");
    expect(closed.signers[0]).toMatchObject({ status: "declined", decline_reason: "consent_withdrawn", consent: { given_at: null } });
    expect(closed.signers[1]).toMatchObject({ status: "pending", sent_at: null, declined_at: null });
  }, 120_000);

  it("shows a paid payment once Stripe reports it", async () => {
    const t = await payingTenant();
    const e = await sentPayEnvelope(t.key);
    expect((await sign(e.buyer, "buyer")).status).toBe(200);
    expect((await payFor(t.key, e.envelopeId)).status).toBe(200);
    const paid = await read(t.key, e.envelopeId);
    expect(paid.payment).toMatchObject({ status: "paid", amount: 150_000, currency: "usd", payer_email: "ann@example.com" });
    expect(Date.parse(paid.payment.paid_at)).not.toBeNaN();
  }, 120_000);

  it("falls back to the organization's reminder defaults, and shows null for what was not set", async () => {
    const t = await newTenant();
    const plain = await read(t.key, (await createEnvelope(t.key)).envelope_id);
    expect(plain).toMatchObject({ signers: [], cc: [], reminders: null, payment: null, consumer_consent: false });
    expect((await operator("PATCH", `/orgs/${t.orgId}`, { reminder_after_days: 5 })).status).toBe(200);
    const defaulted = await read(t.key, (await createEnvelope(t.key)).envelope_id);
    expect(defaulted.reminders).toEqual({ after_days: 5, every_days: 0, next_at: null });
    const own = await read(t.key, (await createEnvelope(t.key, { reminder_every_days: 4 })).envelope_id);
    expect(own.reminders).toEqual({ after_days: 5, every_days: 4, next_at: null });
  });

  it("reads an envelope of another organization as not found, on either shard", async () => {
    const a = await newTenant({ shard: 2 });
    const b = await newTenant();
    const e = await createEnvelope(a.key, { cc: CC });
    expect(shardOf(e.envelope_id)).toBe(2);
    expect((await read(a.key, e.envelope_id)).cc).toEqual(CC);
    for (const path of [`/partner/envelopes/${e.envelope_id}`, `/partner/envelopes/${e.envelope_id}/events`]) {
      const res = await call("GET", path, { key: b.key });
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ error: "Envelope not found", code: "not_found" });
    }
  });

  it("is one statement on the envelope's shard and one on the global database, whatever the signers", async () => {
    const t = await routedKbaPayEnvelope();
    await call("POST", `/envelopes/${t.envelopeId}/send`, {
      bearer: t.dealerToken,
      body: { signers: [{ role: "buyer", email: t.buyerEmail, name: "Jane Buyer", routing_order: 1 }, { role: "dealer", email: t.dealerEmail, name: "Dana Dealer", routing_order: 2 }] },
    });
    const res = await countedCall("GET", `/partner/envelopes/${t.envelopeId}`, { key: t.key });
    expect(res.status).toBe(200);
    expect(res.body.data.signers).toHaveLength(2);
    expect(res.statements, res.tally.sql.join("\n")).toBe(2);
  }, 120_000);
});

describe("GET /partner/envelopes/:id/events", () => {
  it("pages the chain oldest first; every entry re-hashes to its hash and links to the one before; no slug, session, token or signing URL", async () => {
    const t = await routedKbaPayEnvelope();
    const sent = await call("POST", `/envelopes/${t.envelopeId}/send`, {
      bearer: t.dealerToken,
      body: { signers: [{ role: "buyer", email: t.buyerEmail, name: "Jane Buyer", routing_order: 1 }, { role: "dealer", email: t.dealerEmail, name: "Dana Dealer", routing_order: 2 }] },
    });
    const buyer = sent.body.data.signers[0].slug as string;
    await takeKba(buyer, t.buyerEmail, { ip: "203.0.113.7" });
    await signing("POST", buyer, "consent", { agree: true });
    await signing("POST", buyer, "view");
    expect((await signing("POST", buyer, "submit", { values: { buyer_signature: TINY_PNG } })).status).toBe(200);
    const links = await call("GET", `/partner/envelopes/${t.envelopeId}/signing-links`, { key: t.key });
    await signing("POST", sent.body.data.signers[1].slug, "decline", { reason: "No longer needed" });

    const all = await call("GET", `/partner/envelopes/${t.envelopeId}/events?limit=100`, { key: t.key });
    expect(all.status).toBe(200);
    const entries = all.body.data as any[];
    expect(all.body.meta).toEqual({ page: 1, limit: 100, total: entries.length });
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    expect(entries[0].action).toBe("envelope.created");
    expect(entries.map((e) => e.action)).toEqual(expect.arrayContaining(["envelope.send", "envelope.kba_verified", "signer.consented", "envelope.view", "signer.completed", "signer.declined", "envelope.decline"]));
    let prev = "0".repeat(64);
    for (const e of entries) {
      expect(e.chain_id).toBe(t.envelopeId);
      expect(e.org_id).toBe(t.orgId);
      expect(e.prev_hash, `entry ${e.seq}`).toBe(prev);
      expect(await rehash(e), `entry ${e.seq} (${e.action})`).toBe(e.hash);
      prev = e.hash;
    }
    const kba = entries.find((e) => e.action === "envelope.kba_verified");
    expect(kba.actor).toMatchObject({ type: "signer", ip: "203.0.113.7" });

    // small pages add up to the whole chain; past the end is an empty page with the total
    const paged = await wholeTimeline(t.key, t.envelopeId, 3);
    expect(paged.entries).toEqual(entries);
    expect(paged.total).toBe(entries.length);
    const beyond = await call("GET", `/partner/envelopes/${t.envelopeId}/events?page=99&limit=3`, { key: t.key });
    expect(beyond.body).toEqual({ data: [], meta: { page: 99, limit: 3, total: entries.length } });

    const text = JSON.stringify(all.body);
    expect(text).not.toMatch(/slug/i);
    expect(text).not.toMatch(/\/s\/|\/signing\/|https?:\/\//);
    expect(text).not.toMatch(/\bes_[A-Za-z0-9_-]{16,}|eyJ[A-Za-z0-9_-]{10,}|whsec_|\blk_[0-9a-f]{40}/);
    for (const s of [...sent.body.data.signers, ...links.body.data.signers]) expect(text).not.toContain(s.slug);
  }, 120_000);

  it("works for an envelope on shard 2, needs envelopes:read, and refuses a bad page or limit", async () => {
    const t = await newTenant({ shard: 2 });
    const e = await createEnvelope(t.key);
    expect(shardOf(e.envelope_id)).toBe(2);
    const res = await call("GET", `/partner/envelopes/${e.envelope_id}/events`, { key: t.key });
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ page: 1, limit: 20, total: 1 });
    expect(res.body.data[0]).toMatchObject({ seq: 1, action: "envelope.created", chain_id: e.envelope_id, actor: { type: "api_key" } });
    expect(await rehash(res.body.data[0])).toBe(res.body.data[0].hash);
    for (const q of ["limit=101", "limit=0", "page=0", "page=x"]) expect((await call("GET", `/partner/envelopes/${e.envelope_id}/events?${q}`, { key: t.key })).status, q).toBe(400);

    const { key } = await (await import("../../../helpers/api")).newKey(t.orgId, ["envelopes:write"]);
    const refused = await call("GET", `/partner/envelopes/${e.envelope_id}/events`, { key });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain("envelopes:read");
  });
});
