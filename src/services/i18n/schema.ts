import { z } from "@hono/zod-openapi";
import { LOCALES } from "../../db/schema/locales";

/** A signer's language (docs/decisions/signing-page-languages.md). */
export const LocaleSchema = z.enum(LOCALES).openapi("Locale", {
  description: "The signer's language: the signing page, the signer's emails and the shipped E-SIGN disclosure (`en` English, `es` Spanish)",
});

/** `?locale=` of GET and PUT /org/esign-disclosure (default `en`). */
export const LocaleQuery = z.object({
  locale: LocaleSchema.optional().openapi({ param: { name: "locale", in: "query" }, description: "The disclosure's language (default `en`): each locale keeps its own versions" }),
});

export const OrgSettingsBody = z
  .strictObject({ default_locale: LocaleSchema.openapi({ description: "The language of new envelopes that name none" }) })
  .openapi("OrgSettingsInput", { example: { default_locale: "es" } });

export const OrgSettingsSchema = z
  .object({ org_id: z.string(), default_locale: LocaleSchema, updated_at: z.string() })
  .openapi("OrgSettings");
export type OrgSettings = z.infer<typeof OrgSettingsSchema>;
