import type { Locale } from "../../db/schema/locales";
import type { OrgContext } from "../../lib/context";
import { disclosureView } from "./disclosure";
import { findCurrentDisclosure } from "./repository";
import type { EsignDisclosure } from "./schema";

/** GET /org/esign-disclosure?locale=: the organization's current version in that locale, or its shipped default (version 0). */
export async function getEsignDisclosure(ctx: OrgContext, input: { locale: Locale }): Promise<EsignDisclosure> {
  return disclosureView(await findCurrentDisclosure(ctx.global, ctx.orgId, input.locale), input.locale);
}
