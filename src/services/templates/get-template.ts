import type { OrgContext } from "../../lib/context";
import { getTemplate, listTemplateFields, templateDb } from "./repository";
import { partnerTemplateDetail } from "./serialize";

/** GET /partner/templates/:id: the template with its fields and roles; deleted or another organization's is 404. */
export async function getPartnerTemplate(ctx: OrgContext, input: { templateId: string }) {
  const db = templateDb(ctx, input.templateId);
  const row = await getTemplate(db, ctx.orgId, input.templateId);
  return partnerTemplateDetail(row, await listTemplateFields(db, row.id));
}
