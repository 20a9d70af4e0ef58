import { KBA_SETS_PER_DAY } from "../../db/schema/kba";
import { ApiError } from "../../lib/errors";
import { newShardId } from "../../lib/shards";
import type { RequestContext } from "../../lib/context";
import { addSeconds, nowIso } from "../../lib/time";
import type { KbaQuestion } from "../../providers/kba";
import { requestOrigin } from "../signers/signer-actor";
import { commitKba } from "./commit";
import { outcomeChange } from "./record-outcome";
import { attemptsLeft, KBA_SESSION_TTL_SECONDS, loadKbaSigner, subjectOf } from "./load-kba-signer";
import { assertUnderDailyCap, KBA_SET_CAP_WINDOW_SECONDS } from "./daily-cap";
import { lapseSession } from "./lapse-session";
import { insertKbaSession, kbaCheckUnavailable, openSessionOf, type KbaSessionRow } from "./repository";

const sessionView = (session: KbaSessionRow, questions: KbaQuestion[]) => ({ session_id: session.id, expires_at: session.expires_at, questions });

/**
 * GET /signing/:slug/kba (docs/decisions/sign-and-pay.md). While the signer's check is `required`, returns the open
 * question set: the same set (no new provider call) on every call until it is answered or lapses.
 * A set that lapsed unanswered is settled as a used attempt (lapse-session.ts) before anything else;
 * a new set is then started only while attempts are left and the signer's daily cap of sets allows
 * (429 `kba_daily_limit` naming when it resets). When the provider cannot build questions, the
 * outcome `unavailable` is recorded here (result, audit, timeline; not billed) and returned.
 */
export async function getKbaStep(ctx: RequestContext, input: { signerId: string }) {
  const origin = requestOrigin(ctx.actor);
  for (let round = 0; round < 4; round++) {
    const { sc, check, provider } = await loadKbaSigner(ctx, input.signerId);
    if (check.status !== "required") return { status: check.status, attempts_left: attemptsLeft(check), session: null };
    const at = nowIso();
    const subject = subjectOf(sc);
    const open = await openSessionOf(ctx.db, sc.signer.id);
    if (open && open.expires_at > at) {
      return { status: check.status, attempts_left: attemptsLeft(check), session: sessionView(open, await provider.questions(open.provider_session_id, subject)) };
    }
    if (open) {
      await lapseSession(ctx, { signerId: input.signerId, session: open, origin });
      continue; // read the state the lapse left: `failed` after the last attempt, else a new set
    }
    const since = addSeconds(at, -KBA_SET_CAP_WINDOW_SECONDS);
    await assertUnderDailyCap(ctx.db, sc.signer.id, since);
    const started = await provider.start(subject);
    if (started.status === "unavailable") {
      const recorded = await commitKba(ctx, async () => {
        const fresh = await loadKbaSigner(ctx, input.signerId);
        const now = nowIso();
        return {
          // the guard: a check that is no longer `required` makes status NULL and fails the batch whole
          guards: [kbaCheckUnavailable(ctx.db, sc.signer.id, now)],
          outcome: outcomeChange(ctx, {
            envelope: fresh.sc.envelope,
            signer: fresh.sc.signer,
            outcome: "unavailable",
            provider: provider.name,
            providerSessionId: started.providerSessionId,
            attempts: fresh.check.attempts_used,
            origin,
            at: now,
          }),
        };
      });
      if (!recorded) continue; // another request settled the check first: answer with its state
      return { status: "unavailable" as const, attempts_left: 0, session: null };
    }
    const session: KbaSessionRow = {
      id: newShardId("kbaSession", ctx.shardId),
      signer_id: sc.signer.id,
      envelope_id: sc.envelope.id,
      org_id: sc.envelope.org_id,
      provider: provider.name,
      provider_session_id: started.providerSessionId,
      attempt: check.attempts_used + 1,
      status: "open",
      outcome: null,
      expires_at: addSeconds(at, KBA_SESSION_TTL_SECONDS),
      created_at: at,
      scored_at: null,
    };
    try {
      // inserted only while the check is at the attempt read and the day's cap holds (re-checked in SQL: a racing start loses here)
      await insertKbaSession(ctx.db, session, { attemptsUsed: check.attempts_used, since, cap: KBA_SETS_PER_DAY });
    } catch (err) {
      // two first loads raced: one open set per signer (partial unique index); show the winner's
      if (err instanceof Error && /UNIQUE constraint failed: kba_sessions/.test(err.message)) continue;
      throw err;
    }
    const stored = await openSessionOf(ctx.db, sc.signer.id);
    if (stored?.id !== session.id) continue;
    return { status: check.status, attempts_left: attemptsLeft(check), session: sessionView(session, started.questions) };
  }
  throw new ApiError(409, "The identity verification changed while this request was processed; retry");
}
