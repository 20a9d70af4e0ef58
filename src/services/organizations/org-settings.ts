import { notFound } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import type { OrgContext } from "../../lib/context";
import type { Locale } from "../../db/schema/locales";
import { commitWithOrgAudit } from "../audit/org-chain";
import type { OrgSettings } from "../i18n/schema";
import { defaultLocaleUpdate, getOrganizationLocaleSettings } from "./repository";

/** GET /org/settings: the organization's default locale. */
export async function getOrgSettings(ctx: OrgContext): Promise<OrgSettings> {
  const row = await getOrganizationLocaleSettings(ctx.global, ctx.orgId);
  if (!row) throw notFound("Organization");
  return { org_id: ctx.orgId, default_locale: row.default_locale, updated_at: row.updated_at };
}

/** PUT /org/settings: the default locale of new envelopes, with its audit entry in one batch. */
export async function setOrgSettings(ctx: OrgContext, input: { defaultLocale: Locale }): Promise<OrgSettings> {
  const { global: db, orgId } = ctx;
  const at = nowIso();
  await commitWithOrgAudit(db, { orgId, action: "org.settings_updated", actor: ctx.actor, data: { default_locale: input.defaultLocale }, at }, [
    defaultLocaleUpdate(db, orgId, input.defaultLocale, at),
  ]);
  return getOrgSettings(ctx);
}
