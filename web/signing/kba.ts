import { t } from "../i18n";
import type { PageMessages } from "../i18n/catalogs";
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

const LOCKED: Record<Exclude<KbaStatus, "required" | "passed">, [keyof PageMessages, keyof PageMessages]> = {
  failed: ["kba_failed", "kba_failed_text"],
  unavailable: ["kba_unavailable", "kba_unavailable_text"],
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
        finalScreen(t("kba_too_many"), t("kba_too_many_text", { message: err.message }), "info");
        return false;
      }
      throw err;
    }
    if (step.status === "passed") return true;
    if (step.status !== "required" || !step.session) {
      const [heading, text] = LOCKED[step.status === "required" ? "failed" : step.status];
      finalScreen(t(heading), t(text), step.status === "failed" ? "error" : "info");
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
        h("legend", {}, h("span", { class: "kba-number" }, t("kba_question_of", { n: i + 1, total: session.questions.length })), h("span", { class: "kba-prompt" }, q.prompt)),
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
    const submit = h("button", { type: "submit", class: "primary", id: "kba-submit" }, t("kba_submit"));
    const form = h(
      "form",
      { class: "kba", id: "kba-form", novalidate: true, "aria-labelledby": "kba-title" },
      h("h2", { id: "kba-title", tabindex: -1 }, t("kba_title")),
      h(
        "p",
        { class: "kba-intro" },
        `${t("kba_intro", { time: new Date(session.expires_at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) })} ${step.attempts_left === 1 ? t("kba_last_attempt") : t("kba_attempts", { count: step.attempts_left })}`,
      ),
      ...fieldsets,
      error,
      h("div", { class: "dialog-actions" }, submit),
    );
    byId("main").replaceChildren(form);
    if (first) notice(t("kba_notice"));
    // a new step: focus on its heading, so a screen reader starts there (WCAG 2.4.3)
    byId("kba-title").focus();

    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const answers = session.questions.map((q) => ({ question_id: q.question_id, choice_id: form.querySelector<HTMLInputElement>(`input[name="kba-${CSS.escape(q.question_id)}"]:checked`)?.value }));
      const missing = answers.findIndex((a) => !a.choice_id);
      if (missing >= 0) {
        error.textContent = t("kba_answer_first", { n: missing + 1 });
        fieldsets[missing]!.querySelector("input")!.focus();
        return;
      }
      submit.disabled = true;
      try {
        const result = await callApi<{ status: KbaStatus; attempts_left: number }>(api, { method: "POST", json: { session_id: session.session_id, answers } });
        if (result.status === "required") {
          notice(result.attempts_left === 1 ? t("kba_no_match_last") : t("kba_no_match", { count: result.attempts_left }), "error");
          resolve("retry");
          return;
        }
        resolve(result.status);
      } catch (err) {
        // a lapsed or already answered set: fetch the current state and carry on from there
        if (err instanceof ApiFailure && (err.status === 410 || err.status === 409)) {
          notice(err.status === 410 ? t("kba_expired") : err.message, "error");
          resolve("retry");
          return;
        }
        submit.disabled = false;
        error.textContent = err instanceof ApiFailure ? err.message : t("error_generic");
      }
    });
  });
}
