import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { answer, answersFor, kbaStep, sentKbaEnvelope, usageLinesOf } from "../helpers/kba";
import { signing } from "../helpers/signing-flow";
import { shardDbOf } from "../helpers/shards";

/** Moves the clock past a question set's 10 minutes, as the suite does for KBA expiry. */
const lapse = (sessionId: string) => shardDbOf(sessionId).prepare("UPDATE kba_sessions SET expires_at = '2000-01-01T00:00:00.000Z' WHERE id = ?").bind(sessionId).run();

/** Every question set the provider was asked for, for one signer's link (each one a billable provider call). */
async function setsOf(envelopeId: string) {
  const { results } = await shardDbOf(envelopeId).prepare("SELECT id, attempt, status, outcome, created_at FROM kba_sessions WHERE envelope_id = ? ORDER BY created_at, rowid")
    .bind(envelopeId)
    .all<{ id: string; attempt: number; status: string; outcome: string | null; created_at: string }>();
  return results;
}

describe("KBA question shopping: a link holder cannot collect fresh question sets", () => {
  it("re-serves the open set, counts a lapsed set as an attempt, and locks the link after the second lapse", async () => {
    const s = await sentKbaEnvelope();
    const first = (await kbaStep(s.buyer)).body.data;
    expect(first).toMatchObject({ status: "required", attempts_left: 2 });
    // reloading gives the same set, not a new provider call
    expect((await kbaStep(s.buyer)).body.data.session).toEqual(first.session);

    await lapse(first.session.session_id);
    const second = (await kbaStep(s.buyer)).body.data;
    expect(second.session.session_id).not.toBe(first.session.session_id);
    expect(second).toMatchObject({ status: "required", attempts_left: 1 });

    await lapse(second.session.session_id);
    expect((await kbaStep(s.buyer)).body.data).toEqual({ status: "failed", attempts_left: 0, session: null });
    expect((await kbaStep(s.buyer)).body.data).toEqual({ status: "failed", attempts_left: 0, session: null });
    expect((await setsOf(s.envelopeId)).map((x) => [x.attempt, x.status, x.outcome])).toEqual([
      [1, "expired", "failed"],
      [2, "expired", "failed"],
    ]);

    // the locked link stays locked, and the sender sees the failed verification
    const doc = await signing("GET", s.buyer, "document");
    expect(doc.status).toBe(403);
    expect(doc.body).toMatchObject({ code: "kba_required", details: { kba_status: "failed" } });
    const results = (await call("GET", `/envelopes/${s.envelopeId}/kba`, { bearer: s.bearer })).body.data;
    expect(results).toEqual([expect.objectContaining({ signer_email: s.buyerEmail, status: "failed", price_cents: 0 })]);
    // recorded, not billed: only a verified signer is (spec part 8)
    expect(await usageLinesOf(s.orgId)).toHaveLength(0);
  });

  it("answering a set after it lapsed is 410 and uses its attempt; the next set is the last", async () => {
    const s = await sentKbaEnvelope();
    const first = (await kbaStep(s.buyer)).body.data.session;
    await lapse(first.session_id);
    const late = await answer(s.buyer, { session_id: first.session_id, answers: await answersFor(s.buyerEmail, first) });
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({ details: { session_status: "expired", kba_status: "required", attempts_left: 1 } });
    expect(late.body.error).toMatch(/used an attempt/);
    // a second late answer counts nothing more
    expect((await answer(s.buyer, { session_id: first.session_id, answers: await answersFor(s.buyerEmail, first) })).body.details).toMatchObject({ attempts_left: 1 });

    const next = (await kbaStep(s.buyer)).body.data;
    expect(next.attempts_left).toBe(1);
    const wrong = await answer(s.buyer, { session_id: next.session.session_id, answers: await answersFor(s.buyerEmail, next.session, true) });
    expect(wrong.body.data).toEqual({ status: "failed", attempts_left: 0 });
    expect(await setsOf(s.envelopeId)).toHaveLength(2);
  });

  it("a lapsed last set answered late is 410 naming the lock", async () => {
    const s = await sentKbaEnvelope();
    const first = (await kbaStep(s.buyer)).body.data.session;
    await answer(s.buyer, { session_id: first.session_id, answers: await answersFor(s.buyerEmail, first, true) });
    const last = (await kbaStep(s.buyer)).body.data.session;
    await lapse(last.session_id);
    const late = await answer(s.buyer, { session_id: last.session_id, answers: await answersFor(s.buyerEmail, last) });
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({ details: { kba_status: "failed", attempts_left: 0 } });
    expect((await kbaStep(s.buyer)).body.data.status).toBe("failed");
  });

  it("caps question sets at 2 per signer per day even if the check is started over, with 429 naming when it resets", async () => {
    const s = await sentKbaEnvelope();
    const first = (await kbaStep(s.buyer)).body.data.session;
    await answer(s.buyer, { session_id: first.session_id, answers: await answersFor(s.buyerEmail, first, true) });
    const second = (await kbaStep(s.buyer)).body.data.session;
    await answer(s.buyer, { session_id: second.session_id, answers: await answersFor(s.buyerEmail, second, true) });
    // the signer's check started over (as a correction of the signer would): the day's sets are spent all the same
    await shardDbOf(s.envelopeId).prepare("UPDATE kba_checks SET status = 'required', attempts_used = 0 WHERE envelope_id = ?").bind(s.envelopeId).run();

    const capped = await kbaStep(s.buyer);
    expect(capped.status).toBe(429);
    expect(capped.body).toMatchObject({ code: "kba_daily_limit", details: { kba_sets_per_day: 2 } });
    expect(typeof capped.body.error).toBe("string");
    const sets = await setsOf(s.envelopeId);
    expect(sets).toHaveLength(2);
    expect(capped.body.details.resets_at).toBe(new Date(Date.parse(sets[0]!.created_at) + 86_400_000).toISOString());
    expect(Number(capped.headers.get("Retry-After"))).toBeGreaterThan(0);

    // a day later the signer can be asked again
    await shardDbOf(s.envelopeId).prepare("UPDATE kba_sessions SET created_at = '2000-01-01T00:00:00.000Z' WHERE envelope_id = ?").bind(s.envelopeId).run();
    expect((await kbaStep(s.buyer)).body.data).toMatchObject({ status: "required", attempts_left: 2, session: { session_id: expect.stringMatching(/^kbas_/) } });
  });
});
