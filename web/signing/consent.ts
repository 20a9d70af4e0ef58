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
    const agree = h("button", { type: "button", class: "primary", id: "consent-agree" }, "I agree to use electronic records and signatures");
    const refuse = h("button", { type: "button", class: "secondary danger", id: "consent-refuse" }, "I do not agree");
    const heading = h("h2", { id: "consent-title", tabindex: -1 }, "Consent to electronic records and signatures");
    const section = h(
      "section",
      { class: "consent", id: "consent", "aria-labelledby": "consent-title", "data-disclosure-version": disclosure.version },
      heading,
      h("p", { class: "consent-intro" }, "Before you see the document, read how the sender will give you records electronically. You can keep a copy of this page."),
      h("div", { class: "consent-text", id: "consent-text" }, ...paragraphs(disclosure.text)),
      h("h3", {}, "A paper copy"),
      h("p", { class: "consent-contact", id: "consent-paper-copy" }, disclosure.paper_copy_contact),
      h("h3", {}, "Withdrawing your consent"),
      h("div", { class: "consent-withdrawal", id: "consent-withdrawal" }, ...paragraphs(disclosure.withdrawal_instructions)),
      error,
      h("div", { class: "consent-actions" }, refuse, agree),
    );
    byId("main").replaceChildren(section);
    notice("Consent: agree to use electronic records and signatures to open the document.");
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
        error.textContent = err instanceof ApiFailure ? err.message : "Something went wrong; try again.";
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

const REFUSE = { title: "Do not agree?", confirm: "I do not agree, decline", lead: "If you do not agree" };
const WITHDRAW = { title: "Withdraw your consent?", confirm: "Withdraw consent, decline", lead: "If you withdraw your consent" };

function declinedScreen(envelopeId: string, contact: string) {
  tellParent({ type: "signing:declined", envelope_id: envelopeId });
  finalScreen("You declined to sign", "You did not agree to use electronic records and signatures, so this document will not be signed electronically. The sender has been told.", "info");
  byId("main").querySelector(".final")?.append(h("p", { class: "consent-contact" }, `For a paper copy or another way to sign: ${contact}`));
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
function confirmRefusal(words: typeof REFUSE, contact: string, confirmed: () => Promise<void>) {
  const dialog = h(
    "dialog",
    { class: "consent-dialog", "aria-labelledby": "consent-refuse-title", "aria-describedby": "consent-refuse-text" },
    h(
      "form",
      { method: "dialog" },
      h("h2", { id: "consent-refuse-title" }, words.title),
      h(
        "p",
        { id: "consent-refuse-text" },
        `${words.lead}, you decline to sign this document electronically: the sender is told, and it can no longer be signed from this link. For a paper copy: ${contact}`,
      ),
      h(
        "div",
        { class: "dialog-actions" },
        h("button", { type: "button", class: "secondary", id: "consent-refuse-cancel", onclick: () => dialog.close() }, "Go back"),
        h("button", { type: "submit", class: "primary danger", id: "consent-refuse-confirm" }, words.confirm),
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
