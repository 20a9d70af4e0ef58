import { KBA_MAX_ATTEMPTS, type KbaCheckStatus } from "../../db/schema/kba";
import { ApiError, conflict, notFound, unprocessable } from "../../lib/errors";
import type { RequestContext } from "../../lib/context";
import { nowIso } from "../../lib/time";
import type { ApiIssue } from "../../lib/validation";
import type { KbaQuestion } from "../../providers/kba";
import { requestOrigin } from "../signers/signer-actor";
import { commitKba } from "./commit";
import { lapseSession } from "./lapse-session";
import { getKbaCheck, getKbaSession } from "./repository";
import { settleSession } from "./settle-session";
import type { KbaAnswersInput } from "./schema";
import { attemptsLeft, loadKbaSigner, subjectOf } from "./load-kba-signer";

const issue = (path: (string | number)[], expected: string, received: string, message: string): ApiIssue => ({ code: "invalid_value", expected, received, path, message });

/** Every question answered once, with one of its own choices: 422 naming each problem otherwise (no attempt used). */
function checkAnswers(questions: KbaQuestion[], answers: KbaAnswersInput["answers"]) {
  const issues: ApiIssue[] = [];
  const seen = new Set<string>();
  answers.forEach((a, i) => {
    const q = questions.find((x) => x.question_id === a.question_id);
    if (!q) issues.push(issue(["answers", i, "question_id"], `one of: ${questions.map((x) => x.question_id).join(", ")}`, JSON.stringify(a.question_id), "Not a question of this session"));
    else if (seen.has(q.question_id)) issues.push(issue(["answers", i, "question_id"], "each question answered once", JSON.stringify(a.question_id), "This question is answered twice"));
    else if (!q.choices.some((c) => c.choice_id === a.choice_id)) {
      issues.push(issue(["answers", i, "choice_id"], `one of: ${q.choices.map((c) => c.choice_id).join(", ")}`, JSON.stringify(a.choice_id), "Not a choice of this question"));
    }
    if (q) seen.add(q.question_id);
  });
  for (const q of questions) if (!seen.has(q.question_id)) issues.push(issue(["answers"], `an answer to ${q.question_id}`, "none", `Question ${q.question_id} is not answered`));
  if (issues.length) throw unprocessable("The answers do not match the session's questions; no attempt was used", issues);
}

/**
 * POST /signing/:slug/kba: scores one question set. The answers go to the provider and are dropped:
 * never stored, logged or returned; only the outcome is kept. `passed` unlocks the document; a wrong
 * set, or a set answered after it lapsed, uses one of the 2 attempts; after the last, `failed` locks
 * the link (the sender can void or re-send). The final outcome is recorded and billed in the same batch as the move, behind SQL guards
 * (the session must still be open and the check still at the attempt read), so a replayed or racing
 * answer is a 409 and never a second verification or a second usage line.
 */
export async function answerKba(ctx: RequestContext, input: { signerId: string; body: KbaAnswersInput }) {
  const origin = requestOrigin(ctx.actor);
  const { sc, check, provider } = await loadKbaSigner(ctx, input.signerId);
  if (check.status !== "required") {
    throw conflict(`Identity verification is already ${check.status} for this signer; there is nothing left to answer`, { kba_status: check.status });
  }
  const session = await getKbaSession(ctx.db, input.body.session_id, sc.signer.id);
  // another signer's session is as unknown to this link as a made-up id
  if (!session) throw notFound("KBA session");
  if (session.status === "scored") throw conflict("This question set has already been answered; GET /signing/:slug/kba for the current state", { session_status: "scored" });
  const at = nowIso();
  if (session.status === "expired" || session.expires_at <= at) {
    if (session.status === "open") await lapseSession(ctx, { signerId: input.signerId, session, origin });
    const after = await getKbaCheck(ctx.db, sc.signer.id);
    const left = after ? attemptsLeft(after) : 0;
    throw new ApiError(
      410,
      after?.status === "failed"
        ? "This question set expired unanswered and used the last attempt: identity verification failed and this link is locked"
        : `This question set expired unanswered and used an attempt (${left} left); GET /signing/:slug/kba for the next set`,
      { session_status: "expired", kba_status: after?.status ?? null, attempts_left: left },
    );
  }
  const subject = subjectOf(sc);
  checkAnswers(await provider.questions(session.provider_session_id, subject), input.body.answers);
  const scored = await provider.score(session.provider_session_id, subject, input.body.answers);
  const final = scored === "passed" || session.attempt >= KBA_MAX_ATTEMPTS;
  const status: KbaCheckStatus = scored === "passed" ? "passed" : final ? "failed" : "required";

  const committed = await commitKba(ctx, () =>
    settleSession(ctx, { signerId: input.signerId, session, settledAs: "scored", outcome: scored, checkStatus: status, provider: provider.name, origin }),
  );
  if (!committed) throw conflict("This question set has already been answered; GET /signing/:slug/kba for the current state", { session_status: "scored" });
  return { status, attempts_left: attemptsLeft({ ...check, status, attempts_used: session.attempt }) };
}
