import { ApiFailure, callApi } from "../shared/api";
import { byId, clearNotice, finalScreen, h, notice } from "../shared/dom";

/**
 * The SMS one-time passcode step (docs/decisions/sms-otp.md): for a signer sent with `auth: "sms_otp"`,
 * after KBA and before consent. The signer asks for a code, enters the 6 digits (the phone offers
 * them from the text: `autocomplete="one-time-code"`), and may ask for a new one once a minute; the
 * countdown says when. Every status change is announced through the page's live notice.
 */

export type OtpState = { required: boolean; verified: boolean; phone: string | null; verified_at: string | null };
type OtpSent = { phone: string; expires_at: string; resend_at: string; sends_left_today: number };

type Locale = "en" | "es";
/** Every user-visible string of this step, per locale (fold into the page's catalogs as `otp.*`). */
export const OTP_STRINGS: Record<Locale, Record<string, string>> = {
  en: {
    title: "Verify your phone",
    intro: "Before the document opens, we text a 6-digit code to {phone}. Message and data rates may apply.",
    send: "Text me a code",
    sending: "Sending…",
    sent: "We texted a code to {phone}. It works for 10 minutes.",
    label: "6-digit code",
    hint: "Enter the 6 digits from the text message.",
    verify: "Verify",
    resend: "Send a new code",
    resendIn: "Send a new code in {seconds} s",
    needDigits: "Enter the 6 digits of the code.",
    wrong: "That code is not right. {left} tries left.",
    exhausted: "That code was tried too many times. Ask for a new code.",
    expired: "That code has expired. Ask for a new code.",
    wait: "Wait {seconds} seconds before asking for another code.",
    daily: "Too many codes today. Open this link again after {time}.",
    dailyTitle: "Too many codes today",
    notSent: "The text message could not be sent. Try again in a minute.",
    verified: "Phone verified. Opening the document…",
    viewOnlyTitle: "View only",
    viewOnly: "The signer has not verified their phone yet: the document opens here once they have.",
    failed: "Something went wrong. Try again.",
  },
  es: {
    title: "Verifique su teléfono",
    intro: "Antes de abrir el documento, le enviaremos un código de 6 dígitos por mensaje de texto al {phone}. Pueden aplicarse tarifas de mensajes y datos.",
    send: "Envíenme un código",
    sending: "Enviando…",
    sent: "Le enviamos un código al {phone}. Es válido por 10 minutos.",
    label: "Código de 6 dígitos",
    hint: "Escriba los 6 dígitos del mensaje de texto.",
    verify: "Verificar",
    resend: "Enviar un código nuevo",
    resendIn: "Enviar un código nuevo en {seconds} s",
    needDigits: "Escriba los 6 dígitos del código.",
    wrong: "El código no es correcto. Le quedan {left} intentos.",
    exhausted: "Ese código se intentó demasiadas veces. Pida un código nuevo.",
    expired: "Ese código ya venció. Pida un código nuevo.",
    wait: "Espere {seconds} segundos antes de pedir otro código.",
    daily: "Demasiados códigos por hoy. Vuelva a abrir este enlace después de las {time}.",
    dailyTitle: "Demasiados códigos por hoy",
    notSent: "No se pudo enviar el mensaje de texto. Inténtelo de nuevo en un minuto.",
    verified: "Teléfono verificado. Abriendo el documento…",
    viewOnlyTitle: "Solo lectura",
    viewOnly: "El firmante todavía no ha verificado su teléfono: el documento se abrirá aquí cuando lo haga.",
    failed: "Algo salió mal. Inténtelo de nuevo.",
  },
};

const locale = (): Locale => (document.documentElement.lang.toLowerCase().startsWith("es") ? "es" : "en");
const t = (key: string, vars: Record<string, string | number> = {}) =>
  (OTP_STRINGS[locale()][key] ?? OTP_STRINGS.en[key] ?? key).replace(/\{(\w+)\}/g, (_, k: string) => String(vars[k] ?? ""));

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
