/** The languages of the signing page and its emails (docs/decisions/signing-page-languages.md). */
export const LOCALES = ["en", "es"] as const;
export type Locale = (typeof LOCALES)[number];
