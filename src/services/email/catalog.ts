import type { Locale } from "../../db/schema/locales";
import { en } from "./messages/en";
import { es } from "./messages/es";

/** The keys of the signer emails' catalog: English defines them, every other locale has the same. */
export type EmailMessages = { [K in keyof typeof en]: string };

/** One catalog per locale (docs/decisions/signing-page-languages.md). */
export const EMAIL_CATALOGS: Record<Locale, EmailMessages> = { en, es };

/** The message `key` of `locale`, its `{name}` placeholders filled (a missing value is left as written). */
export function emailText(locale: Locale, key: keyof EmailMessages, values: Record<string, string> = {}): string {
  return EMAIL_CATALOGS[locale][key].replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** A date (UTC) as the locale writes it: `2026-12-01` in English (as before), `1 de diciembre de 2026` in Spanish. */
export function emailDate(locale: Locale, iso: string): string {
  if (locale === "en") return iso.slice(0, 10);
  return new Intl.DateTimeFormat("es-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" }).format(new Date(iso));
}
