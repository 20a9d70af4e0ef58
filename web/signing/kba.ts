import { ApiFailure, callApi } from "../shared/api";
import { byId, clearNotice, finalScreen, h, notice } from "../shared/dom";

/**
 * KBA: the identity questions a signer of a KBA envelope answers before the document opens
 * (docs/decisions/sign-and-pay.md). All questions on one screen, each a fieldset of radio buttons (arrow keys move
 * within a question, Tab between questions; large touch targets on phones). The answers go to the
 * server once and are never kept by this page beyond the request.
 */

type KbaStatus = "required" | "passed" | "failed" | "unavailable";
type KbaQuestion = { question_id: string; prompt: string; choices: { choice_id: string; label: string }[] };
type KbaStep = { status: KbaStatus; attempts_left: number; session: { session_id: string; expires_at: string; questions: KbaQuestion[] } | null };

const LOCKED: Record<Exclude<KbaStatus, "required" | "passed">, [string, string]> = {
  failed: [
    "Identity not verified",
    "Your answers did not match the records, and no attempts are left, so this document cannot be opened from this link. Contact the sender: they can send the document again or arrange another way to sign.",
  ],
  unavailable: [
    "Identity questions unavailable",
    "We could not build identity questions for you (there is too little record history to ask about). This is not a failure. The sender can see this outcome and decides how to continue: they can send the document again or arrange another way to sign.",
  ],
};

/**
 * Runs the KBA step until the signer passes (resolves true: the caller opens the document) or the
 * link is locked (`failed`) or held (`unavailable`): a final screen, resolves false.
 */
export async function verifyIdentity(slug: string): Promise<boolean> {
  const api = `/api/v2/signing/${encodeURIComponent(slug)}/kba`;
  for (let round = 0; ; round++) {
    let step: KbaStep;
    try {
      step = await callApi<KbaStep>(api);
    } catch (err) {
      // the day's question sets are spent (429 kba_daily_limit): say when, nothing to answer now
      if (err instanceof ApiFailure && err.status === 429) {
        finalScreen("Too many question sets today", `${err.message}. Open this link again then.`, "info");
        return false;
      }
      throw err;
    }
    if (step.status === "passed") return true;
    if (step.status !== "required" || !step.session) {
      const [heading, text] = LOCKED[step.status === "required" ? "failed" : step.status];
      finalScreen(heading, text, step.status === "failed" ? "error" : "info");
      return false;
    }
    const result = await askQuestions(api, step, round === 0);
    if (result === "passed") {
      clearNotice();
      return true;
    }
    // otherwise the next GET says what follows: a fresh set, or the locked/held screen
  }
}

/**
 * Shows one question set; resolves with the outcome, or "retry" to read the step again (wrong answers
 * with an attempt left, or a lapsed set: the next GET gives the next set or the locked screen).
 */
function askQuestions(api: string, step: KbaStep, first: boolean): Promise<KbaStatus | "retry"> {
  const session = step.session!;
  return new Promise((resolve) => {
    const error = h("p", { class: "field-error", id: "kba-error", role: "alert" });
    const fieldsets = session.questions.map((q, i) =>
      h(
        "fieldset",
        { class: "kba-question", "data-question-id": q.question_id },
        h("legend", {}, h("span", { class: "kba-number" }, `Question ${i + 1} of ${session.questions.length}`), h("span", { class: "kba-prompt" }, q.prompt)),
        ...q.choices.map((c) =>
          h(
            "label",
            { class: "kba-choice" },
            h("input", { type: "radio", name: `kba-${q.question_id}`, value: c.choice_id, required: true }),
            h("span", {}, c.label),
          ),
        ),
      ),
    );
    const submit = h("button", { type: "submit", class: "primary", id: "kba-submit" }, "Verify my identity");
    const form = h(
      "form",
      { class: "kba", id: "kba-form", novalidate: true, "aria-labelledby": "kba-title" },
      h("h2", { id: "kba-title", tabindex: -1 }, "Confirm your identity"),
      h(
        "p",
        { class: "kba-intro" },
        `Before the document opens, answer these questions about your own history by ${new Date(session.expires_at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}: questions left unanswered use an attempt. ${step.attempts_left === 1 ? "This is your last attempt." : `You have ${step.attempts_left} attempts.`}`,
      ),
      ...fieldsets,
      error,
      h("div", { class: "dialog-actions" }, submit),
    );
    byId("main").replaceChildren(form);
    if (first) notice("Identity verification: answer the questions to open the document.");
    // a new step: focus on its heading, so a screen reader starts there (WCAG 2.4.3)
    byId("kba-title").focus();

    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const answers = session.questions.map((q) => ({ question_id: q.question_id, choice_id: form.querySelector<HTMLInputElement>(`input[name="kba-${CSS.escape(q.question_id)}"]:checked`)?.value }));
      const missing = answers.findIndex((a) => !a.choice_id);
      if (missing >= 0) {
        error.textContent = `Answer question ${missing + 1} first.`;
        fieldsets[missing]!.querySelector("input")!.focus();
        return;
      }
      submit.disabled = true;
      try {
        const result = await callApi<{ status: KbaStatus; attempts_left: number }>(api, { method: "POST", json: { session_id: session.session_id, answers } });
        if (result.status === "required") {
          notice(`Those answers did not match. ${result.attempts_left === 1 ? "You have one more attempt, with new questions." : `${result.attempts_left} attempts left, with new questions.`}`, "error");
          resolve("retry");
          return;
        }
        resolve(result.status);
      } catch (err) {
        // a lapsed or already answered set: fetch the current state and carry on from there
        if (err instanceof ApiFailure && (err.status === 410 || err.status === 409)) {
          notice(err.status === 410 ? "Those questions expired unanswered, which used an attempt." : err.message, "error");
          resolve("retry");
          return;
        }
        submit.disabled = false;
        error.textContent = err instanceof ApiFailure ? err.message : "Something went wrong; try again.";
      }
    });
  });
}
