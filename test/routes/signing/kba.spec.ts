import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call } from "../../helpers/api";
import { answer, answersFor, auditOf, kbaStep, sentKbaEnvelope, takeKba, usageLinesOf } from "../../helpers/kba";
import { outboxOf } from "../../helpers/signing";
import { placedText, signing, storedDocument } from "../../helpers/signing-flow";
import { allShardDbs, globalDb, shardDbOf } from "../../helpers/shards";

const BLOCKED: [string, string, unknown?][] = [
  ["GET", "document"],
  ["POST", "view"],
  ["POST", "submit", { values: { buyer_signature: "Jane Buyer" } }],
  ["POST", "decline", { reason: "not me" }],
];

describe("KBA on the signing host: the journey", () => {
  it("refuses the document until the signer passes, then signs, completes, vaults, and the certificate names the verification", async () => {
    const s = await sentKbaEnvelope();
    expect(s.sent.signers[0].embed_url).toBe(`${env.SIGNING_HOST}/s/${s.buyer}`);

    const before = await signing("GET", s.buyer);
    expect(before.status).toBe(200);
    expect(before.body.data).toMatchObject({ envelope: { id: s.envelopeId, status: "sent" }, signer: { email: s.buyerEmail }, kba: { required: true, status: "required" }, fields: [] });
    for (const [method, action, body] of BLOCKED) {
      const res = await signing(method, s.buyer, action, body);
      expect(res.status, `${method} ${action}`).toBe(403);
      expect(res.body).toMatchObject({ code: "kba_required", details: { kba_status: "required" } });
      expect(typeof res.body.error).toBe("string");
    }

    const step = await kbaStep(s.buyer);
    expect(step.status).toBe(200);
    expect(step.body.data).toMatchObject({ status: "required", attempts_left: 2 });
    const session = step.body.data.session;
    expect(session.session_id).toMatch(/^kbas_/);
    expect(session.questions).toHaveLength(3);
    for (const q of session.questions) expect(q.choices).toHaveLength(4);
    // reloading the page shows the same question set
    expect((await kbaStep(s.buyer)).body.data.session).toEqual(session);

    const passed = await answer(s.buyer, { session_id: session.session_id, answers: await answersFor(s.buyerEmail, session) }, { "cf-connecting-ip": "203.0.113.7" });
    expect(passed.status).toBe(200);
    expect(passed.body.data).toEqual({ status: "passed", attempts_left: 0 });
    expect(JSON.stringify(passed.body)).not.toContain(session.questions[0].choices[0].choice_id);
    expect((await kbaStep(s.buyer)).body.data).toEqual({ status: "passed", attempts_left: 0, session: null });

    const after = await signing("GET", s.buyer);
    expect(after.body.data.kba).toEqual({ required: true, status: "passed" });
    expect(after.body.data.fields.map((f: { name: string }) => f.name)).toEqual(["buyer_signature"]);
    expect((await signing("GET", s.buyer, "document")).status).toBe(200);
    expect((await signing("POST", s.buyer, "view")).status).toBe(200);
    const submitted = await signing("POST", s.buyer, "submit", { values: { buyer_signature: "Jane Buyer" } });
    expect(submitted.status).toBe(200);
    expect(submitted.body.data).toMatchObject({ envelope_status: "completed", completed: true });

    // the signing certificate page inside the signed PDF names the verification
    const signed = await storedDocument(s.envelopeId, "signed");
    const text = (await placedText(signed!.bytes)).pages.join(" ");
    expect(text).toMatch(/KBA passed \(sandbox session kbasbx_[0-9a-z]+, \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\)/);

    const vaulted = await call("POST", `/partner/envelopes/${s.envelopeId}/vault-in-signed`, { key: s.key, body: {} });
    expect(vaulted.status, JSON.stringify(vaulted.body)).toBe(200);
    const cert = await call("GET", `/partner/envelopes/${s.envelopeId}/vault/certificate`, { key: s.key });
    expect(cert.status).toBe(200);
    const [result] = (await call("GET", `/envelopes/${s.envelopeId}/kba`, { bearer: s.bearer })).body.data;
    expect(result).toEqual({ signer_email: s.buyerEmail, status: "passed", occurred_at: expect.any(String), provider: "sandbox", provider_session_id: expect.stringMatching(/^kbasbx_/), ip_address: "203.0.113.7", price_cents: 400 });
    expect(cert.body.data.identity_verification).toEqual({
      kba_required: true,
      signers: [{ signer: s.buyerEmail, status: "passed", timestamp: result.occurred_at, ip_address: "203.0.113.7", provider: "sandbox", session_id: result.provider_session_id }],
    });
    // additive evidence only: the eight checks are those of any vaulted envelope
    expect(cert.body.data.ucc_9105_compliance.checks).toHaveLength(8);
  });

  it("asks a signer whose envelope is in Spanish the questions in Spanish, and their right answers pass", async () => {
    const s = await sentKbaEnvelope({ locale: "es" });
    const { session, res } = await takeKba(s.buyer, s.buyerEmail);
    expect(session.questions).toHaveLength(3);
    for (const q of session.questions as unknown as { prompt: string }[]) expect(q.prompt).toMatch(/^¿.+\?$/);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await kbaStep(s.buyer)).body.data.status).toBe("passed");
  });

  it("records the outcome in the audit chain and on the timeline, bills it once, and keeps no question or answer anywhere", async () => {
    const s = await sentKbaEnvelope();
    const monthBefore = new Date().toISOString().slice(0, 7);
    const { session, res } = await takeKba(s.buyer, s.buyerEmail, { ip: "198.51.100.4" });
    const monthAfter = new Date().toISOString().slice(0, 7);
    expect(res.status).toBe(200);

    const entries = (await auditOf(s.envelopeId)).filter((e) => e.action === "envelope.kba_verified");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor_type: "signer",
      ip: "198.51.100.4",
      data: { outcome: "passed", provider: "sandbox", provider_session_id: expect.stringMatching(/^kbasbx_/), ip_address: "198.51.100.4", occurred_at: expect.any(String), signer: { email: s.buyerEmail, role: "buyer" } },
    });
    const verify = await call("GET", `/envelopes/${s.envelopeId}/audit/verify`, { bearer: s.bearer });
    expect(verify.body.data.verified).toBe(true);

    const timeline = await shardDbOf(s.envelopeId).prepare("SELECT type, data, dispatched_at FROM events WHERE envelope_id = ? AND type = 'kba.verified'").bind(s.envelopeId).all<Record<string, any>>();
    expect(timeline.results).toHaveLength(1);
    expect(JSON.parse(timeline.results[0]!.data)).toMatchObject({ outcome: "passed", signer: { email: s.buyerEmail } });
    // a record, not a webhook: written already dispatched, never fanned out
    expect(timeline.results[0]!.dispatched_at).not.toBeNull();
    expect((await shardDbOf(s.envelopeId).prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE event_id IN (SELECT id FROM events WHERE type = 'kba.verified' AND envelope_id = ?)").bind(s.envelopeId).first())!.n).toBe(0);

    const lines = await usageLinesOf(s.orgId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ kind: "kba_verification", quantity: 1, unit_cents: 400, envelope_id: s.envelopeId });
    // the month the verification was billed in: the current one (either side of a month's end, should the test straddle it)
    expect([monthBefore, monthAfter]).toContain(lines[0]!.month);

    // nowhere: not the choices sent, not the prompts, not the word "answers"
    const dump = JSON.stringify(
      await Promise.all(
        ["audit_log", "events", "kba_checks", "kba_sessions", "kba_results", "usage_lines", "email_outbox"].flatMap((table) =>
          [...new Set([globalDb, ...allShardDbs()])].map(async (db) => (await db.prepare(`SELECT * FROM ${table} WHERE org_id = ?`).bind(s.orgId).all()).results),
        ),
      ),
    );
    for (const q of session.questions) {
      for (const c of q.choices) expect(dump).not.toContain(c.choice_id);
    }
    expect(dump).not.toContain("prompt");
    expect(dump).not.toContain("answers");
  });
});

describe("KBA attempts and outcomes", () => {
  it("a wrong set uses one of two attempts; the second wrong set fails, locks the link and bills nothing (only a verified signer is billed)", async () => {
    const s = await sentKbaEnvelope();
    const first = await takeKba(s.buyer, s.buyerEmail, { wrong: true });
    expect(first.res.status).toBe(200);
    expect(first.res.body.data).toEqual({ status: "required", attempts_left: 1 });
    expect(await usageLinesOf(s.orgId)).toHaveLength(0);

    const second = await takeKba(s.buyer, s.buyerEmail, { wrong: true });
    expect(second.session.session_id).not.toBe(first.session.session_id);
    expect(second.res.body.data).toEqual({ status: "failed", attempts_left: 0 });

    expect((await kbaStep(s.buyer)).body.data).toEqual({ status: "failed", attempts_left: 0, session: null });
    expect((await signing("GET", s.buyer)).body.data).toMatchObject({ kba: { required: true, status: "failed" }, fields: [] });
    const locked = await signing("GET", s.buyer, "document");
    expect(locked.status).toBe(403);
    expect(locked.body).toMatchObject({ code: "kba_required", details: { kba_status: "failed" } });
    expect(locked.body.error).toMatch(/void the envelope or send it again/);

    const again = await answer(s.buyer, { session_id: second.session.session_id, answers: await answersFor(s.buyerEmail, second.session) });
    expect(again.status).toBe(409);
    // the envelope stays open for the sender to void or re-send
    expect((await call("GET", `/partner/envelopes/${s.envelopeId}/status`, { key: s.key })).body.data.status).toBe("sent");
    expect((await call("POST", `/partner/envelopes/${s.envelopeId}/void`, { key: s.key, body: { reason: "KBA failed" } })).status).toBe(200);

    const results = (await call("GET", `/envelopes/${s.envelopeId}/kba`, { bearer: s.bearer })).body.data;
    expect(results).toEqual([expect.objectContaining({ signer_email: s.buyerEmail, status: "failed", price_cents: 0 })]);
    expect(await usageLinesOf(s.orgId)).toHaveLength(0);
    expect((await auditOf(s.envelopeId)).filter((e) => e.action === "envelope.kba_verified").map((e) => e.data.outcome)).toEqual(["failed"]);
  });

  it("unavailable (no record history) is recorded, not billed, and holds the link for the sender to decide", async () => {
    const email = `jane.${crypto.randomUUID().slice(0, 6)}+kba-unavailable@example.com`;
    const s = await sentKbaEnvelope({ buyerEmail: email });
    const step = await kbaStep(s.buyer);
    expect(step.status).toBe(200);
    expect(step.body.data).toEqual({ status: "unavailable", attempts_left: 0, session: null });
    expect((await kbaStep(s.buyer)).body.data.status).toBe("unavailable");

    const doc = await signing("GET", s.buyer, "document");
    expect(doc.status).toBe(403);
    expect(doc.body).toMatchObject({ code: "kba_required", details: { kba_status: "unavailable" } });
    expect(doc.body.error).toMatch(/sender decides/);

    expect(await usageLinesOf(s.orgId)).toHaveLength(0);
    const results = (await call("GET", `/envelopes/${s.envelopeId}/kba`, { bearer: s.bearer })).body.data;
    expect(results).toEqual([expect.objectContaining({ signer_email: email, status: "unavailable", price_cents: 0 })]);
    expect((await auditOf(s.envelopeId)).filter((e) => e.action === "envelope.kba_verified").map((e) => e.data.outcome)).toEqual(["unavailable"]);
  });

  it("never challenges or bills the sender added as a signer; the customer's invitation announces the questions, the sender's does not", async () => {
    const s = await sentKbaEnvelope({ dealerIsSender: true });
    expect(s.sent.signers.map((x: { signing_url: string }) => x.signing_url.startsWith(`${env.SIGNING_HOST}/s/`))).toEqual([true, true]);
    const dealerState = await signing("GET", s.dealer);
    expect(dealerState.body.data.kba).toEqual({ required: false, status: null });
    expect((await kbaStep(s.dealer)).status).toBe(404);

    await takeKba(s.buyer, s.buyerEmail);
    expect((await signing("POST", s.buyer, "submit", { values: { buyer_signature: "Jane Buyer" } })).status).toBe(200);
    expect((await signing("POST", s.dealer, "submit", { values: { dealer_signature: "Dana Dealer" } })).status).toBe(200);

    const emails = await outboxOf(s.envelopeId);
    expect(emails.find((m) => m.to_email === s.buyerEmail)!.text).toMatch(/questions that confirm your identity/);
    expect(emails.find((m) => m.to_email.toLowerCase() === s.dealerEmail)!.text).not.toMatch(/questions/);
    const lines = await usageLinesOf(s.orgId);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.signer_id).not.toBeNull();
    expect(lines[0]!.description).toContain(s.buyerEmail);
  });
});

describe("KBA bad input: clear 4xx, never a second verification", () => {
  it("refuses another signer's session, unknown sessions, question and choice ids, and missing answers, using no attempt", async () => {
    const a = await sentKbaEnvelope();
    const b = await sentKbaEnvelope();
    const sessionA = (await kbaStep(a.buyer)).body.data.session;
    const sessionB = (await kbaStep(b.buyer)).body.data.session;

    const foreign = await answer(a.buyer, { session_id: sessionB.session_id, answers: await answersFor(b.buyerEmail, sessionB) });
    expect(foreign.status).toBe(404);
    expect((await answer(a.buyer, { session_id: "kbas_doesnotexist", answers: [{ question_id: "x", choice_id: "y" }] })).status).toBe(404);

    const right = await answersFor(a.buyerEmail, sessionA);
    const unknownQuestion = await answer(a.buyer, { session_id: sessionA.session_id, answers: [...right.slice(1), { question_id: "mothers_maiden_name", choice_id: "a" }] });
    expect(unknownQuestion.status).toBe(422);
    expect(unknownQuestion.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: ["answers", 2, "question_id"] })]));
    const unknownChoice = await answer(a.buyer, { session_id: sessionA.session_id, answers: [{ ...right[0]!, choice_id: "zzz" }, ...right.slice(1)] });
    expect(unknownChoice.status).toBe(422);
    expect(unknownChoice.body.details[0].path).toEqual(["answers", 0, "choice_id"]);
    const missing = await answer(a.buyer, { session_id: sessionA.session_id, answers: right.slice(0, 2) });
    expect(missing.status).toBe(422);
    const twice = await answer(a.buyer, { session_id: sessionA.session_id, answers: [right[0], right[0], right[1]] });
    expect(twice.status).toBe(422);
    const malformed = await answer(a.buyer, { session_id: sessionA.session_id, answers: "all of them" });
    expect(malformed.status).toBe(422);

    expect((await kbaStep(a.buyer)).body.data).toMatchObject({ status: "required", attempts_left: 2, session: { session_id: sessionA.session_id } });
    expect((await kbaStep(b.buyer)).body.data).toMatchObject({ status: "required", attempts_left: 2 });
    expect((await answer(a.buyer, { session_id: sessionA.session_id, answers: right })).body.data.status).toBe("passed");
  });

  it("a replayed answer is 409, and a set that lapsed is 410 and uses its attempt; the failed verification is recorded once and not billed", async () => {
    const s = await sentKbaEnvelope();
    const first = await takeKba(s.buyer, s.buyerEmail, { wrong: true });
    const replay = await answer(s.buyer, { session_id: first.session.session_id, answers: await answersFor(s.buyerEmail, first.session) });
    expect(replay.status).toBe(409);
    expect(replay.body.error).toMatch(/already been answered/);

    const next = (await kbaStep(s.buyer)).body.data;
    expect(next.attempts_left).toBe(1);
    await shardDbOf(s.envelopeId).prepare("UPDATE kba_sessions SET expires_at = '2000-01-01T00:00:00.000Z' WHERE id = ?").bind(next.session.session_id).run();
    const expired = await answer(s.buyer, { session_id: next.session.session_id, answers: await answersFor(s.buyerEmail, next.session) });
    expect(expired.status).toBe(410);
    expect(expired.body.details).toEqual({ session_status: "expired", kba_status: "failed", attempts_left: 0 });
    expect((await kbaStep(s.buyer)).body.data).toEqual({ status: "failed", attempts_left: 0, session: null });

    const after = await answer(s.buyer, { session_id: next.session.session_id, answers: await answersFor(s.buyerEmail, next.session) });
    expect(after.status).toBe(409);
    expect(after.body.details).toEqual({ kba_status: "failed" });
    expect(await usageLinesOf(s.orgId)).toHaveLength(0);
    expect((await call("GET", `/envelopes/${s.envelopeId}/kba`, { bearer: s.bearer })).body.data).toEqual([expect.objectContaining({ status: "failed", price_cents: 0 })]);
  });

  it("two simultaneous answers to one question set: one is scored, the other is 409, and one verification is billed", async () => {
    const s = await sentKbaEnvelope();
    const session = (await kbaStep(s.buyer)).body.data.session;
    const body = { session_id: session.session_id, answers: await answersFor(s.buyerEmail, session) };
    const results = await Promise.all([answer(s.buyer, body), answer(s.buyer, body), answer(s.buyer, body)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect(await usageLinesOf(s.orgId)).toHaveLength(1);
    expect((await call("GET", `/envelopes/${s.envelopeId}/kba`, { bearer: s.bearer })).body.data).toHaveLength(1);
  });

  it("a link without a KBA step has no questions (404); a closed envelope's link is 410", async () => {
    const s = await sentKbaEnvelope();
    await call("POST", `/partner/envelopes/${s.envelopeId}/void`, { key: s.key, body: { reason: "restructured" } });
    expect((await kbaStep(s.buyer)).status).toBe(410);
    expect((await kbaStep("0123456789abcdefghjkmn")).status).toBe(404);
  });
});
