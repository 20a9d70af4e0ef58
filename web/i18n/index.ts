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
