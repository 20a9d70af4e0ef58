import type { OrgContext } from "../../lib/context";
import { listRolesAndFieldCounts, listTemplatesPage } from "./repository";
import { partnerTemplateListItem } from "./serialize";

/**
 * GET /partner/templates: the organization's templates that are not deleted, newest first, each with
 * its roles and field count; `total` counts them all.
 */
export async function listTemplates(ctx: OrgContext, input: { page: number; limit: number }) {
  const { rows, total } = await listTemplatesPage(ctx.global, { orgId: ctx.orgId, limit: input.limit, offset: (input.page - 1) * input.limit });
  const summaries = await listRolesAndFieldCounts(ctx.global, rows.map((r) => r.id));
  return { items: rows.map((r) => partnerTemplateListItem(r, summaries.get(r.id) ?? { roles: [], fieldCount: 0 })), total };
}
