import { t } from "../i18n";
import { ApiFailure, callApi } from "../shared/api";
import { byId, clearNotice, finalScreen, h, notice, tellParent } from "../shared/dom";
import type { ConsentState, PageState } from "./types";

/**
 * E-SIGN consent (15 U.S.C. §7001(c), docs/consumer-signing.md): before the document opens (after KBA where KBA
 * applies), a consumer reads the organization's disclosure and agrees to use electronic records and
 * signatures, or does not agree, which declines the envelope (reason `consent_withdrawn`). Until the
 * signer agrees, the API keeps the document closed (403 `consent_required`).
 */

/** True while the signer still has to answer the disclosure. */
export const consentPending = (state: PageState): state is PageState & { consent: ConsentState } =>
  Boolean(state.consent && state.consent.required && !state.consent.given_at);

/** A disclosure's text as paragraphs: blank lines separate them, single line breaks stay (CSS pre-line). */
const paragraphs = (text: string) =>
  text
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => h("p", {}, p));

/**
 * Shows the disclosure; resolves true once the signer agreed (the caller reads the state again and
 * opens the document), false when they did not agree (the declined screen is shown).
 */
export function askConsent(slug: string, consent: ConsentState, envelopeId: string): Promise<boolean> {
  const api = `/api/v2/signing/${encodeURIComponent(slug)}/consent`;
  const { disclosure } = consent;
  return new Promise((resolve, reject) => {
    const error = h("p", { class: "field-error", id: "consent-error", role: "alert" });
    const agree = h("button", { type: "button", class: "primary", id: "consent-agree" }, t("consent_agree"));
    const refuse = h("button", { type: "button", class: "secondary danger", id: "consent-refuse" }, t("consent_refuse"));
    const heading = h("h2", { id: "consent-title", tabindex: -1 }, t("consent_title"));
    const section = h(
      "section",
      { class: "consent", id: "consent", "aria-labelledby": "consent-title", "data-disclosure-version": disclosure.version },
      heading,
      h("p", { class: "consent-intro" }, t("consent_intro")),
      h("div", { class: "consent-text", id: "consent-text" }, ...paragraphs(disclosure.text)),
      h("h3", {}, t("consent_paper")),
      h("p", { class: "consent-contact", id: "consent-paper-copy" }, disclosure.paper_copy_contact),
      h("h3", {}, t("consent_withdrawing")),
      h("div", { class: "consent-withdrawal", id: "consent-withdrawal" }, ...paragraphs(disclosure.withdrawal_instructions)),
      error,
      h("div", { class: "consent-actions" }, refuse, agree),
    );
    byId("main").replaceChildren(section);
    notice(t("consent_notice"));
    heading.focus();

    const setBusy = (busy: boolean) => {
      agree.disabled = busy;
      refuse.disabled = busy;
    };
    /** Posts the answer; a closed link (410) or anything unexpected goes to the page's error screen. */
    const answer = async (agreed: boolean) => {
      setBusy(true);
      error.textContent = "";
      try {
        await callApi(api, { method: "POST", json: { agree: agreed } });
        return true;
      } catch (err) {
        if (err instanceof ApiFailure && (err.status === 410 || err.status === 404)) {
          reject(err);
          return false;
        }
        error.textContent = err instanceof ApiFailure ? err.message : t("error_generic");
        setBusy(false);
        return false;
      }
    };

    agree.addEventListener("click", async () => {
      if (await answer(true)) {
        clearNotice();
        resolve(true);
      }
    });
    refuse.addEventListener("click", () =>
      confirmRefusal(REFUSE, disclosure.paper_copy_contact, async () => {
        if (!(await answer(false))) return;
        declinedScreen(envelopeId, disclosure.paper_copy_contact);
        resolve(false);
      }),
    );
  });
}

const REFUSE = { title: "refuse_title", confirm: "refuse_confirm", text: "refuse_text" } as const;
const WITHDRAW = { title: "withdraw_title", confirm: "withdraw_confirm", text: "withdraw_text" } as const;

function declinedScreen(envelopeId: string, contact: string) {
  tellParent({ type: "signing:declined", envelope_id: envelopeId });
  finalScreen(t("declined_heading"), t("consent_declined_text"), "info");
  byId("main").querySelector(".final")?.append(h("p", { class: "consent-contact" }, t("consent_paper_contact", { contact })));
}

/**
 * "Withdraw consent" while the document is open (before signing), as the disclosure promises: the
 * same confirmation, then `{agree: false}` and the declined screen. `failed` shows the API's refusal.
 */
export function withdrawConsent(slug: string, consent: ConsentState, envelopeId: string, failed: (err: unknown) => void) {
  confirmRefusal(WITHDRAW, consent.disclosure.paper_copy_contact, async () => {
    try {
      await callApi(`/api/v2/signing/${encodeURIComponent(slug)}/consent`, { method: "POST", json: { agree: false } });
    } catch (err) {
      return failed(err);
    }
    declinedScreen(envelopeId, consent.disclosure.paper_copy_contact);
  });
}

/** Not agreeing (or withdrawing) asks first: it declines the envelope for everyone and cannot be undone from this page. */
function confirmRefusal(words: typeof REFUSE | typeof WITHDRAW, contact: string, confirmed: () => Promise<void>) {
  const dialog = h(
    "dialog",
    { class: "consent-dialog", "aria-labelledby": "consent-refuse-title", "aria-describedby": "consent-refuse-text" },
    h(
      "form",
      { method: "dialog" },
      h("h2", { id: "consent-refuse-title" }, t(words.title)),
      h(
        "p",
        { id: "consent-refuse-text" },
        t(words.text, { contact }),
      ),
      h(
        "div",
        { class: "dialog-actions" },
        h("button", { type: "button", class: "secondary", id: "consent-refuse-cancel", onclick: () => dialog.close() }, t("go_back")),
        h("button", { type: "submit", class: "primary danger", id: "consent-refuse-confirm" }, t(words.confirm)),
      ),
    ),
  );
  document.body.append(dialog);
  dialog.addEventListener("close", () => dialog.remove());
  dialog.querySelector("form")!.addEventListener("submit", async (e) => {
    e.preventDefault();
    dialog.close();
    await confirmed();
  });
  dialog.showModal();
  (dialog.querySelector("#consent-refuse-cancel") as HTMLButtonElement).focus();
}
