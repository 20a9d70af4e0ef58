import { PAGE_CATALOGS, type PageLocale, type PageMessages } from "./catalogs";

export { PAGE_CATALOGS };

/**
 * The page's language: the envelope's `locale` once the state is read (setLocale); before that (a link
 * that no longer works, a missing token) the browser's preferred language if it is one we have.
 */
let current: PageLocale = typeof navigator !== "undefined" && /^es\b/i.test(navigator.language) ? "es" : "en";

export const locale = () => current;

/** Switches the page's language, its `lang` and the shell's own words. */
export function setLocale(next: string | undefined) {
  current = next === "es" ? "es" : "en";
  document.documentElement.lang = current;
  const skip = document.querySelector(".skip-link");
  if (skip) skip.textContent = t("skip_link");
}

/** The message `key` in the page's language, `{name}` placeholders filled. */
export function t(key: keyof PageMessages, values: Record<string, string | number> = {}): string {
  return PAGE_CATALOGS[current][key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** A date (and time) as the page's language writes it. */
export const formatDate = (iso: string, withTime = false) =>
  new Date(iso)[withTime ? "toLocaleString" : "toLocaleDateString"](current === "es" ? "es-US" : "en-US", { year: "numeric", month: "long", day: "numeric", ...(withTime ? { hour: "numeric", minute: "2-digit" } : {}) });

/** API error codes the page words itself in its language (the server's `error` is English); the rest keep the server's text. */
const API_ERRORS: Record<string, keyof PageMessages> = {
  otp_invalid: "api_otp_invalid",
  otp_attempts_exhausted: "api_otp_attempts_exhausted",
  otp_expired: "api_otp_expired",
  otp_send_limit: "api_otp_send_limit",
  otp_daily_limit: "api_otp_daily_limit",
  otp_no_phone: "api_otp_no_phone",
  sms_not_sent: "api_sms_not_sent",
  kba_daily_limit: "api_kba_daily_limit",
  attachment_empty: "api_attachment_empty",
  attachment_too_large: "api_attachment_too_large",
  attachment_type_not_accepted: "api_attachment_type_not_accepted",
  attachment_unreadable: "api_attachment_unreadable",
  attachment_dimensions: "api_attachment_dimensions",
};

/** The page's message for an API error `code`, its `details` filling the placeholders; undefined for a code it does not know. */
export function apiErrorText(code: string | undefined, details: unknown): string | undefined {
  const key = code ? API_ERRORS[code] : undefined;
  if (!key) return undefined;
  const values: Record<string, string | number> = details && typeof details === "object" ? { ...(details as Record<string, string | number>) } : {};
  if (typeof values.max_bytes === "number") values.max_mb = Math.round(values.max_bytes / 1024 / 1024);
  // the types a field takes, as the server names them (application/pdf: PDF)
  const accept = (details as { accept?: unknown } | null)?.accept;
  if (Array.isArray(accept)) values.accepted = accept.map((type) => String(type).split("/").pop()!.toUpperCase()).join(", ");
  return t(key, values);
}
