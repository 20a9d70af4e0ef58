import { ApiFailure, callApi, fetchBytes } from "../shared/api";
import { byId, clearNotice, finalScreen, h, notice, tellParent } from "../shared/dom";
import { embedFailureText, openEmbedSession, takeEmbedToken } from "../shared/embed";
import { renderPdf } from "../shared/pdf-view";
import { buildFieldControl, documentOrder, type FieldControl } from "./fields";
import { SignatureDialog } from "./signature-dialog";
import { payAfterSigning } from "./payment";
import { verifyIdentity } from "./kba";
import { verifyPhone } from "./otp";
import { askConsent, consentPending, withdrawConsent } from "./consent";
import { awaitCopy, completionScreen } from "./completion";
import type { PageState, SubmittedValue } from "./types";

const ENDED: Record<number, string> = {
  410: "This signing link is no longer active.",
  404: "This signing link is not valid.",
};

/** Opens the page: a signer's link carries the slug; an embedded page exchanges its token for it. */
async function start() {
  const { mode, slug, envelopeId } = document.body.dataset;
  try {
    if (mode === "link" && slug) return await new SigningPage(slug).open();
    const token = envelopeId ? takeEmbedToken("sign", envelopeId) : null;
    if (!token || !envelopeId) {
      return finalScreen("Link incomplete", "This page was opened without its secure token. Go back to the site that sent you here and open it again.", "error");
    }
    const session = await openEmbedSession<{ signing_slug: string }>("sign", envelopeId, token);
    await new SigningPage(session.signing_slug).open();
  } catch (err) {
    const failure = err instanceof ApiFailure ? err : new ApiFailure(0, "Something went wrong while opening the document.");
    if (mode !== "link" && (failure.status === 401 || failure.status === 403)) {
      return finalScreen("Cannot open this document", embedFailureText(failure.status, failure.message), "error");
    }
    // Sign + Pay: the envelope closed (410) while its payer still owes the payment: offer the payment step
    if (mode === "link" && slug && failure.status === 410 && (await payAfterSigning(slug))) {
      return finalScreen("Thank you", "Your signature and your payment are recorded. There is nothing left for you to do.", "success");
    }
    finalScreen(ENDED[failure.status] ? "Signing link" : "Cannot open this document", ENDED[failure.status] ? `${ENDED[failure.status]} ${failure.message}` : failure.message, "error");
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
    byId("title").textContent = envelope.name;
    document.title = `${envelope.name} · Review and sign`;
    // Sign + Pay: a payer who signed but left before paying gets the payment step again (./payment.ts)
    if (signer.status === "completed") {
      const paid = await payAfterSigning(this.slug);
      // after completion the link shows the signer's copy for 30 days (./completion.ts)
      const done = envelope.status === "completed" || envelope.status === "vaulted";
      return completionScreen(
        paid ? "Thank you" : done ? "Everyone has signed" : "Already signed",
        paid
          ? "Your signature and your payment are recorded. There is nothing left for you to do."
          : `You signed this document${signer.signed_at ? ` on ${new Date(signer.signed_at).toLocaleString()}` : ""}. There is nothing left for you to do.`,
        this.state.copy,
        envelope.name,
        done ? "Your copy was emailed to you." : "Once everyone has signed, you will get an email with a link to download your copy.",
      );
    }
    if (signer.status === "declined") return finalScreen("Declined", "You declined to sign this document.", "info");
    // a view-only session (a partner key without esign:write): the signer's view, no step taken for them
    if (this.state.view_only) {
      if (this.state.kba.required && this.state.kba.status !== "passed") return finalScreen("View only", "The signer has not verified their identity yet: the document opens here once they have.", "info");
      if (consentPending(this.state)) return finalScreen("View only", "The signer has not consented to electronic records yet: the document opens here once they have.", "info");
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
    let bytes: Uint8Array;
    try {
      bytes = await fetchBytes(`${this.api}/document`);
    } catch (err) {
      // consent asked for again (a stale tab, or it started over): show the consent step again
      if (err instanceof ApiFailure && err.code === "consent_required" && this.reopened++ < 2) return this.open();
      throw err;
    }
    const pages = await renderPdf(doc, bytes, `Page`);
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
      notice(`View only: this is what ${signer.name} sees. Nothing can be filled in or signed from this link.`);
      return;
    }
    if (!this.state.is_your_turn) {
      this.controls.forEach((c) => c.disable());
      const waiting = this.state.signers.filter((s) => !s.is_you && s.status !== "completed" && s.routing_order < signer.routing_order);
      notice(`It is not your turn yet: waiting for ${waiting.map((s) => s.name).join(", ") || "earlier signers"} to sign first. You will get an email when it is your turn.`);
      return;
    }
    try {
      await callApi(`${this.api}/view`, { method: "POST" });
    } catch (err) {
      if (err instanceof ApiFailure && err.code === "consent_required" && this.reopened++ < 2) return this.restart();
      throw err;
    }
    tellParent({ type: "signing:viewed", envelope_id: envelope.id });
    const required = this.controls.filter((c) => c.field.required && !c.field.readonly).length;
    notice(`Signing as ${signer.name}. ${required ? `${required} required field${required === 1 ? "" : "s"} to fill, then choose Finish.` : "Review the document, then choose Finish."}`);
    this.updateProgress();
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
          ? h("button", { type: "button", class: "link withdraw", id: "withdraw-consent", onclick: () => !this.busy && withdrawConsent(this.slug, consent, this.state.envelope.id, (err) => notice(err instanceof ApiFailure ? err.message : "Something went wrong. Try again.", "error")) }, "Withdraw consent")
          : null,
      ),
      h(
        "div",
        { class: "actions" },
        h("span", { id: "progress", class: "progress", "aria-live": "polite" }),
        mine ? h("button", { type: "button", class: "secondary", id: "next-field", onclick: () => this.nextField() }, "Next field") : null,
        mine ? h("button", { type: "button", class: "secondary danger", id: "decline", onclick: () => this.decline() }, "Decline") : null,
        mine ? h("button", { type: "button", class: "primary", id: "finish", onclick: () => this.finish() }, "Finish") : null,
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
    if (el) el.textContent = required.length ? `${required.length - missing.length} of ${required.length} required fields done` : "";
    if (!this.state.is_your_turn) return;
    // the notice follows the fields: the "fill in" list shrinks as they are filled, and goes once none is left
    const key = missing.map((c) => c.field.name).join(",");
    if (key === this.missingShown) return;
    const before = this.missingShown;
    this.missingShown = key;
    if (missing.length === 0 && required.length > 0) {
      this.refused = false;
      notice("Every required field is filled. Review the document, then choose Finish.", "success");
    } else if (this.refused) {
      notice(`Fill in the required field${missing.length === 1 ? "" : "s"} first: ${missing.map((c) => c.label).join(", ")}.`, "error");
    } else if (before === "" && missing.length > 0 && required.length > 0 && document.getElementById("notice")?.classList.contains("notice-success")) {
      // a field emptied again after "every required field is filled"
      notice(`${missing.length} required field${missing.length === 1 ? "" : "s"} to fill, then choose Finish.`);
    }
  }

  /** Moves focus to the next required field that is still empty (then any empty field). */
  private nextField() {
    const active = document.activeElement;
    const list = this.editable();
    const start = list.findIndex((c) => c.focusTarget === active) + 1;
    const rotated = [...list.slice(start), ...list.slice(0, start)];
    const next = rotated.find((c) => c.field.required && !c.filled()) ?? rotated.find((c) => !c.filled());
    if (!next) return notice("Every field is filled. Choose Finish to sign.");
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
      notice(`Fill in the required field${missing.length === 1 ? "" : "s"} first: ${missing.map((c) => c.label).join(", ")}.`, "error");
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
        "Thank you, you have signed",
        result.completed ? "Everyone has signed. The completed document is on its way to the sender." : "Your signature is recorded. The next signer has been invited.",
        copy,
        this.state.envelope.name,
        result.completed ? "Your copy is on its way to you by email." : "Once everyone has signed, you will get an email with a link to download your copy.",
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
        h("h2", { id: "decline-title" }, "Decline to sign"),
        h("p", {}, "The sender is told that you declined and why. The document can then no longer be signed by anyone."),
        h("label", { for: "decline-reason" }, "Reason for declining"),
        reason,
        error,
        h(
          "div",
          { class: "dialog-actions" },
          h("button", { type: "button", class: "secondary", onclick: () => dialog.close() }, "Cancel"),
          h("button", { type: "submit", class: "primary danger", id: "decline-confirm" }, "Decline"),
        ),
      ),
    );
    document.body.append(dialog);
    dialog.addEventListener("close", () => dialog.remove());
    dialog.querySelector("form")!.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (!reason.value.trim()) {
        error.textContent = "Give a reason for declining.";
        reason.focus();
        return;
      }
      dialog.close();
      await this.send(async () => {
        await callApi(`${this.api}/decline`, { method: "POST", json: { reason: reason.value.trim() } });
        tellParent({ type: "signing:declined", envelope_id: this.state.envelope.id });
        finalScreen("You declined to sign", "The sender has been told. You can close this page.", "info");
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
      const failure = err instanceof ApiFailure ? err : new ApiFailure(0, "Something went wrong while opening the document.");
      finalScreen(ENDED[failure.status] ? "Signing link" : "Cannot open this document", ENDED[failure.status] ? `${ENDED[failure.status]} ${failure.message}` : failure.message, "error");
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
      const failure = err instanceof ApiFailure ? err : new ApiFailure(0, "Something went wrong. Try again.");
      // consent asked for again (a stale tab): the consent step, then the document afresh
      if (failure.code === "consent_required" && this.reopened++ < 2) return void (await this.restart());
      if (failure.status === 410) return finalScreen("Signing link", `${ENDED[410]} ${failure.message}`, "error");
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
