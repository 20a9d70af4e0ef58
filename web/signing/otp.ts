import { ApiFailure, callApi } from "../shared/api";
import { byId, clearNotice, finalScreen, h, notice } from "../shared/dom";
import { t as pageT } from "../i18n";
import type { PageMessages } from "../i18n/catalogs";

/**
 * The SMS one-time passcode step (docs/decisions/sms-otp.md): for a signer sent with `auth: "sms_otp"`,
 * after KBA and before consent. The signer asks for a code, enters the 6 digits (the phone offers
 * them from the text: `autocomplete="one-time-code"`), and may ask for a new one once a minute; the
 * countdown says when. Every status change is announced through the page's live notice.
 */

export type OtpState = { required: boolean; verified: boolean; phone: string | null; verified_at: string | null };
type OtpSent = { phone: string; expires_at: string; resend_at: string; sends_left_today: number };

/** A string of this step in the page's language (web/i18n: the `otp_*` keys). */
const t = (key: string, vars: Record<string, string | number> = {}) => pageT(`otp_${key}` as keyof PageMessages, vars);

/**
 * Runs the step until the phone is verified (resolves true: the caller reads the state again and goes
 * on) or the step cannot go on now (a view-only session, the day's codes spent): a final screen, false.
 */
export function verifyPhone(slug: string, otp: OtpState, viewOnly: boolean): Promise<boolean> {
  if (viewOnly) {
    finalScreen(t("viewOnlyTitle"), t("viewOnly"), "info");
    return Promise.resolve(false);
  }
  const api = `/api/v2/signing/${encodeURIComponent(slug)}/otp`;
  const phone = otp.phone ?? "";
  return new Promise((resolve) => {
    let timer: number | undefined;
    const error = h("p", { class: "field-error", id: "otp-error", role: "alert" });
    const input = h("input", {
      id: "otp-code",
      name: "otp-code",
      type: "text",
      inputmode: "numeric",
      autocomplete: "one-time-code",
      pattern: "[0-9]{6}",
      maxlength: 6,
      required: true,
      "aria-describedby": "otp-hint otp-error",
      class: "otp-code",
    });
    const verify = h("button", { type: "submit", class: "primary", id: "otp-verify" }, t("verify"));
    const send = h("button", { type: "button", class: "primary", id: "otp-send" }, t("send"));
    const resend = h("button", { type: "button", class: "secondary", id: "otp-resend" }, t("resend"));
    const entry = h(
      "div",
      { class: "otp-entry", hidden: true },
      h("label", { for: "otp-code" }, t("label")),
      h("p", { class: "hint", id: "otp-hint" }, t("hint")),
      input,
      h("div", { class: "dialog-actions" }, resend, verify),
    );
    const form = h(
      "form",
      { class: "otp", id: "otp-form", novalidate: true, "aria-labelledby": "otp-title" },
      h("h2", { id: "otp-title" }, t("title")),
      h("p", { class: "otp-intro" }, t("intro", { phone })),
      h("div", { class: "dialog-actions otp-start" }, send),
      entry,
      error,
    );
    byId("main").replaceChildren(form);
    send.focus();

    /** The resend button waits for `resendAt`, its label counting down (the visible countdown; the live notice is not spammed). */
    const countdown = (resendAt: string) => {
      window.clearInterval(timer);
      const tick = () => {
        const seconds = Math.ceil((Date.parse(resendAt) - Date.now()) / 1000);
        if (seconds <= 0) {
          window.clearInterval(timer);
          resend.disabled = false;
          resend.textContent = t("resend");
          return;
        }
        resend.disabled = true;
        resend.textContent = t("resendIn", { seconds });
      };
      tick();
      timer = window.setInterval(tick, 1000);
    };

    const ask = async (button: HTMLButtonElement) => {
      button.disabled = true;
      error.textContent = "";
      notice(t("sending"));
      try {
        const sent = await callApi<OtpSent>(api, { method: "POST" });
        notice(t("sent", { phone: sent.phone }), "success");
        form.querySelector(".otp-start")?.remove();
        entry.hidden = false;
        input.value = "";
        input.focus();
        countdown(sent.resend_at);
      } catch (err) {
        button.disabled = false;
        if (!(err instanceof ApiFailure)) return void notice(t("failed"), "error");
        if (err.code === "otp_already_verified") return done();
        const details = (err.details ?? {}) as { retry_after?: number; resend_at?: string; resets_at?: string };
        if (err.code === "otp_daily_limit") {
          window.clearInterval(timer);
          const time = details.resets_at ? new Date(details.resets_at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : "";
          finalScreen(t("dailyTitle"), t("daily", { time }), "info");
          return resolve(false);
        }
        if (err.code === "otp_send_limit") {
          notice(t("wait", { seconds: details.retry_after ?? 60 }), "error");
          if (details.resend_at) countdown(details.resend_at);
          return;
        }
        if (err.code === "sms_not_sent") {
          notice(t("notSent"), "error");
          if (details.resend_at) countdown(details.resend_at);
          return;
        }
        notice(err.message, "error");
      }
    };

    const done = () => {
      window.clearInterval(timer);
      notice(t("verified"), "success");
      resolve(true);
    };

    send.addEventListener("click", () => void ask(send));
    resend.addEventListener("click", () => void ask(resend));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const code = input.value.replace(/\D/g, "");
      if (code.length !== 6) {
        error.textContent = t("needDigits");
        input.setAttribute("aria-invalid", "true");
        input.focus();
        return;
      }
      verify.disabled = true;
      error.textContent = "";
      try {
        await callApi(`${api}/verify`, { method: "POST", json: { code } });
        input.removeAttribute("aria-invalid");
        clearNotice();
        done();
      } catch (err) {
        verify.disabled = false;
        input.setAttribute("aria-invalid", "true");
        input.select();
        if (!(err instanceof ApiFailure)) return void (error.textContent = t("failed"));
        const issue = Array.isArray(err.details) ? (err.details[0] as { attempts_left?: number } | undefined) : undefined;
        if (err.code === "otp_invalid") error.textContent = t("wrong", { left: issue?.attempts_left ?? 0 });
        else if (err.code === "otp_attempts_exhausted") error.textContent = t("exhausted");
        else if (err.code === "otp_expired") error.textContent = t("expired");
        else error.textContent = err.message;
        input.focus();
      }
    });
  });
}
