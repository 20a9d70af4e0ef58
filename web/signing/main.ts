import { ApiFailure, callApi, fetchBytes, localizeApiErrors } from "../shared/api";
import { byId, clearNotice, finalScreen, h, notice, tellParent } from "../shared/dom";
import { embedFailureText, openEmbedSession, takeEmbedToken } from "../shared/embed";
import { loadPdfViewer } from "../shared/pdf-loader";
import { layoutPages, type RenderedPage } from "../shared/page-layout";
import { buildFieldControl, documentOrder, type FieldControl } from "./fields";
import { SignatureDialog } from "./signature-dialog";
import { payAfterSigning } from "./payment";
import { verifyIdentity } from "./kba";
import { verifyPhone } from "./otp";
import { askConsent, consentPending, withdrawConsent } from "./consent";
import { awaitCopy, completionScreen } from "./completion";
import type { PageState, SubmittedValue } from "./types";
import { apiErrorText, formatDate, setLocale, t } from "../i18n";

// the API's errors the page knows by code are shown in the page's language (the server's text is English)
localizeApiErrors(apiErrorText);

const ENDED: Record<number, () => string> = {
  410: () => t("ended_410"),
  404: () => t("ended_404"),
};

/** The screen of a page that cannot open: a closed or unknown link, or the API's refusal. */
const failedScreen = (failure: ApiFailure) =>
  finalScreen(ENDED[failure.status] ? t("signing_link") : t("cannot_open"), ENDED[failure.status] ? `${ENDED[failure.status]!()} ${failure.message}` : failure.message, "error");

/** Opens the page: a signer's link carries the slug; an embedded page exchanges its token for it. */
async function start() {
  const { mode, slug, envelopeId } = document.body.dataset;
  void loadPdfViewer();
  try {
    if (mode === "link" && slug) return await new SigningPage(slug).open();
    const token = envelopeId ? takeEmbedToken("sign", envelopeId) : null;
    if (!token || !envelopeId) {
      return finalScreen(t("link_incomplete"), t("link_incomplete_text"), "error");
    }
    const session = await openEmbedSession<{ signing_slug: string }>("sign", envelopeId, token);
    await new SigningPage(session.signing_slug).open();
  } catch (err) {
    const failure = err instanceof ApiFailure ? err : new ApiFailure(0, t("error_opening"));
    if (mode !== "link" && (failure.status === 401 || failure.status === 403)) {
      return finalScreen(t("cannot_open"), embedFailureText(failure.status, failure.message), "error");
    }
    // Sign + Pay: the envelope closed (410) while its payer still owes the payment: offer the payment step
    if (mode === "link" && slug && failure.status === 410 && (await payAfterSigning(slug))) {
      return finalScreen(t("thank_you"), t("paid_text"), "success");
    }
    failedScreen(failure);
  }
}

class SigningPage {
  private state!: PageState;
  private controls: FieldControl[] = [];
  private busy = false;
  /** Finish was refused for empty required fields: the notice lists those still empty until none is */
  private refused = false;
  /** the empty required fields the notice last named (so it is rewritten, and read out, only on change) */
  private missingShown = "";
  /** times the page reopened because the API asked for consent again (never loops) */
  private reopened = 0;

  constructor(private readonly slug: string) {}

  private get api() {
    return `/api/v2/signing/${encodeURIComponent(this.slug)}`;
  }

  async open(): Promise<void> {
    this.state = await callApi<PageState>(this.api);
    const { envelope, signer } = this.state;
    setLocale(envelope.locale);
    byId("title").textContent = envelope.name;
    document.title = t("page_title_of", { name: envelope.name });
    // Sign + Pay: a payer who signed but left before paying gets the payment step again (./payment.ts)
    if (signer.status === "completed") {
      const paid = await payAfterSigning(this.slug);
      // after completion the link shows the signer's copy for 30 days (./completion.ts)
      const done = envelope.status === "completed" || envelope.status === "vaulted";
      return completionScreen(
        paid ? t("thank_you") : done ? t("everyone_signed") : t("already_signed"),
        paid ? t("paid_text") : signer.signed_at ? t("you_signed_on", { date: formatDate(signer.signed_at, true) }) : t("you_signed"),
        this.state.copy,
        envelope.name,
        done ? t("copy_emailed") : t("copy_later"),
      );
    }
    if (signer.status === "declined") return finalScreen(t("declined"), t("declined_text"), "info");
    // a view-only session (a partner key without esign:write): the signer's view, no step taken for them
    if (this.state.view_only) {
      if (this.state.kba.required && this.state.kba.status !== "passed") return finalScreen(t("view_only"), t("view_only_kba"), "info");
      if (consentPending(this.state)) return finalScreen(t("view_only"), t("view_only_consent"), "info");
    }
    // KBA envelopes: the identity questions come first (./kba.ts); once passed, the state carries the fields
    if (this.state.kba.required && this.state.kba.status !== "passed") {
      if (!(await verifyIdentity(this.slug))) return;
      this.state = await callApi<PageState>(this.api);
    }
    // a signer sent with auth sms_otp: the texted code, after KBA, before consent (./otp.ts)
    if (this.state.otp?.required && !this.state.otp.verified) {
      if (!(await verifyPhone(this.slug, this.state.otp, this.state.view_only))) return;
      this.state = await callApi<PageState>(this.api);
    }
    // consumer envelopes: the E-SIGN disclosure and consent, after KBA, before the document (./consent.ts)
    if (consentPending(this.state)) {
      if (!(await askConsent(this.slug, this.state.consent, envelope.id))) return;
      this.state = await callApi<PageState>(this.api);
    }
    const main = byId("main");
    const doc = h("div", { class: "document" });
    main.replaceChildren(doc);
    const bytes = fetchBytes(`${this.api}/document`);
    let pages: RenderedPage[];
    if (this.state.pages?.length) {
      // the page sizes came with the state: the pages are laid out and the fields placed and usable now,
      // and pdf.js paints the pages when it and the document have arrived (docs/decisions/signing-page.md)
      pages = layoutPages(doc, this.state.pages, t("page_label"));
      void this.paintLater(doc, pages, bytes);
    } else {
      // a document stored before page sizes were recorded: pdf.js reads them, so the fields wait for it
      let loaded: Uint8Array;
      try {
        loaded = await bytes;
      } catch (err) {
        // consent asked for again (a stale tab, or it started over): show the consent step again
        if (err instanceof ApiFailure && err.code === "consent_required" && this.reopened++ < 2) return this.open();
        throw err;
      }
      const { renderPdf } = await loadPdfViewer();
      pages = await renderPdf(doc, loaded, t("page_label"));
    }
    const byPage = new Map(pages.map((p) => [p.number, p]));
    const dialog = new SignatureDialog(signer.name);
    this.controls = [...this.state.fields]
      .sort(documentOrder)
      .map((f) =>
        buildFieldControl(
          f,
          byPage,
          (field, label, change) => dialog.request(field, label, change),
          () => this.updateProgress(),
          this.api,
        ),
      )
      .filter((c): c is FieldControl => c !== null);
    this.renderBar();
    if (this.state.view_only) {
      this.controls.forEach((c) => c.disable());
      notice(t("view_only_notice", { name: signer.name }));
      return;
    }
    if (!this.state.is_your_turn) {
      this.controls.forEach((c) => c.disable());
      const waiting = this.state.signers.filter((s) => !s.is_you && s.status !== "completed" && s.routing_order < signer.routing_order);
      notice(t("not_your_turn", { names: waiting.map((s) => s.name).join(", ") || t("earlier_signers") }));
      return;
    }
    try {
      await callApi(`${this.api}/view`, { method: "POST" });
    } catch (err) {
      if (err instanceof ApiFailure && err.code === "consent_required" && this.reopened++ < 2) return this.restart();
      throw err;
    }
    tellParent({ type: "signing:viewed", envelope_id: envelope.id });
    // the document step: focus on its heading (the envelope's name), the notice below says what to do
    byId("title").setAttribute("tabindex", "-1");
    byId("title").focus();
    const required = this.controls.filter((c) => c.field.required && !c.field.readonly).length;
    notice(t(required === 0 ? "signing_as_none" : required === 1 ? "signing_as_one" : "signing_as_count", { name: signer.name, count: required }));
    this.updateProgress();
  }

  /** Paints the document into pages already in use; a failure is said, and consent asked again reopens the page. */
  private async paintLater(doc: HTMLElement, pages: RenderedPage[], bytes: Promise<Uint8Array>) {
    try {
      const [{ paintPdf }, loaded] = await Promise.all([loadPdfViewer(), bytes]);
      if (doc.isConnected) await paintPdf(pages, loaded);
    } catch (err) {
      if (!doc.isConnected) return;
      if (err instanceof ApiFailure && err.code === "consent_required" && this.reopened++ < 2) return void (await this.restart());
      notice(err instanceof ApiFailure ? err.message : t("error_opening"), "error");
    }
  }

  private renderBar() {
    const { signer } = this.state;
    const bar = byId("bar");
    const mine = this.state.is_your_turn && !this.state.view_only;
    const consent = this.state.consent;
    bar.append(
      h(
        "p",
        { class: "who" },
        `${signer.name} · ${signer.role}`,
        // consumer envelopes: consent can be withdrawn until the signer finishes, as the disclosure says
        mine && consent?.given_at
          ? h("button", { type: "button", class: "link withdraw", id: "withdraw-consent", onclick: () => !this.busy && withdrawConsent(this.slug, consent, this.state.envelope.id, (err) => notice(err instanceof ApiFailure ? err.message : t("error_generic"), "error")) }, t("withdraw_consent"))
          : null,
      ),
      h(
        "div",
        { class: "actions" },
        h("span", { id: "progress", class: "progress", "aria-live": "polite" }),
        mine ? h("button", { type: "button", class: "secondary", id: "next-field", onclick: () => this.nextField() }, t("next_field")) : null,
        mine ? h("button", { type: "button", class: "secondary danger", id: "decline", onclick: () => this.decline() }, t("decline")) : null,
        mine ? h("button", { type: "button", class: "primary", id: "finish", onclick: () => this.finish() }, t("finish")) : null,
      ),
    );
  }

  private editable() {
    return this.controls.filter((c) => !c.field.readonly);
  }

  private updateProgress() {
    const required = this.editable().filter((c) => c.field.required);
    const missing = required.filter((c) => !c.filled());
    const el = document.getElementById("progress");
    if (el) el.textContent = required.length ? t("progress", { done: required.length - missing.length, total: required.length }) : "";
    if (!this.state.is_your_turn) return;
    // the notice follows the fields: the "fill in" list shrinks as they are filled, and goes once none is left
    const key = missing.map((c) => c.field.name).join(",");
    if (key === this.missingShown) return;
    const before = this.missingShown;
    this.missingShown = key;
    if (missing.length === 0 && required.length > 0) {
      this.refused = false;
      notice(t("all_filled"), "success");
    } else if (this.refused) {
      notice(t(missing.length === 1 ? "fill_first_one" : "fill_first", { names: missing.map((c) => c.label).join(", ") }), "error");
    } else if (before === "" && missing.length > 0 && required.length > 0 && document.getElementById("notice")?.classList.contains("notice-success")) {
      // a field emptied again after "every required field is filled"
      notice(t(missing.length === 1 ? "to_fill_one" : "to_fill", { count: missing.length }));
    }
  }

  /** Moves focus to the next required field that is still empty (then any empty field). */
  private nextField() {
    const active = document.activeElement;
    const list = this.editable();
    const start = list.findIndex((c) => c.focusTarget === active) + 1;
    const rotated = [...list.slice(start), ...list.slice(0, start)];
    const next = rotated.find((c) => c.field.required && !c.filled()) ?? rotated.find((c) => !c.filled());
    if (!next) return notice(t("every_field_filled"));
    next.focusTarget.scrollIntoView({ block: "center", behavior: "smooth" });
    next.focusTarget.focus({ preventScroll: true });
  }

  private async finish() {
    if (this.busy) return;
    const missing = this.editable().filter((c) => c.field.required && !c.filled());
    this.controls.forEach((c) => c.setInvalid(null));
    if (missing.length) {
      missing.forEach((c) => c.setInvalid("required"));
      this.refused = true;
      this.missingShown = missing.map((c) => c.field.name).join(",");
      notice(t(missing.length === 1 ? "fill_first_one" : "fill_first", { names: missing.map((c) => c.label).join(", ") }), "error");
      missing[0]!.focusTarget.scrollIntoView({ block: "center" });
      missing[0]!.focusTarget.focus({ preventScroll: true });
      return;
    }
    const values: Record<string, SubmittedValue> = {};
    for (const c of this.editable()) {
      const v = c.value();
      if (v !== undefined) values[c.field.name] = v;
    }
    await this.send(async () => {
      const result = await callApi<{ completed: boolean; envelope_status: string }>(`${this.api}/submit`, { method: "POST", json: { values } });
      tellParent({ type: "signing:completed", envelope_id: this.state.envelope.id, envelope_completed: result.completed });
      // Sign + Pay: the payer's payment step, between the submit and the finish screen (./payment.ts)
      await payAfterSigning(this.slug);
      // this submit completed the envelope: the state now carries the signer's copy (./completion.ts)
      const copy = result.completed ? await awaitCopy(this.api) : null;
      completionScreen(
        t("signed_heading"),
        result.completed ? t("signed_all") : t("signed_next"),
        copy,
        this.state.envelope.name,
        result.completed ? t("copy_on_way") : t("copy_later"),
      );
    });
  }

  private async decline() {
    if (this.busy) return;
    const reason = h("textarea", { id: "decline-reason", rows: 4, maxlength: 1000, "aria-required": "true" });
    const error = h("p", { class: "field-error", role: "alert" });
    const dialog = h(
      "dialog",
      { class: "decline-dialog", "aria-labelledby": "decline-title" },
      h(
        "form",
        { method: "dialog" },
        h("h2", { id: "decline-title" }, t("decline_title")),
        h("p", {}, t("decline_text")),
        h("label", { for: "decline-reason" }, t("decline_reason")),
        reason,
        error,
        h(
          "div",
          { class: "dialog-actions" },
          h("button", { type: "button", class: "secondary", onclick: () => dialog.close() }, t("cancel")),
          h("button", { type: "submit", class: "primary danger", id: "decline-confirm" }, t("decline")),
        ),
      ),
    );
    document.body.append(dialog);
    dialog.addEventListener("close", () => dialog.remove());
    dialog.querySelector("form")!.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (!reason.value.trim()) {
        error.textContent = t("decline_reason_missing");
        reason.focus();
        return;
      }
      dialog.close();
      await this.send(async () => {
        await callApi(`${this.api}/decline`, { method: "POST", json: { reason: reason.value.trim() } });
        tellParent({ type: "signing:declined", envelope_id: this.state.envelope.id });
        finalScreen(t("declined_heading"), t("declined_done"), "info");
      });
    });
    dialog.showModal();
    reason.focus();
  }

  /** Opens the page again from its state (the consent step first when the API asks for it again). */
  private async restart() {
    byId("bar").querySelectorAll(".actions, .who").forEach((el) => el.remove());
    this.controls = [];
    this.refused = false;
    this.missingShown = "";
    try {
      await this.open();
    } catch (err) {
      failedScreen(err instanceof ApiFailure ? err : new ApiFailure(0, t("error_opening")));
    }
  }

  /** One request at a time; the API's 422 issues are shown on the fields they name. */
  private async send(action: () => Promise<void>) {
    this.busy = true;
    const buttons = [...document.querySelectorAll<HTMLButtonElement>(".actions button")];
    buttons.forEach((b) => (b.disabled = true));
    clearNotice();
    try {
      await action();
    } catch (err) {
      const failure = err instanceof ApiFailure ? err : new ApiFailure(0, t("error_generic"));
      // consent asked for again (a stale tab): the consent step, then the document afresh
      if (failure.code === "consent_required" && this.reopened++ < 2) return void (await this.restart());
      if (failure.status === 410) return finalScreen(t("signing_link"), `${t("ended_410")} ${failure.message}`, "error");
      const issues = Array.isArray(failure.details) ? (failure.details as { path?: unknown[]; message?: string }[]) : [];
      for (const issue of issues) {
        const name = Array.isArray(issue.path) && issue.path[0] === "values" ? String(issue.path[1]) : null;
        this.controls.find((c) => c.field.name === name)?.setInvalid(issue.message ?? "invalid");
      }
      notice(failure.message, "error");
    } finally {
      this.busy = false;
      buttons.forEach((b) => (b.disabled = false));
    }
  }
}

void start();
