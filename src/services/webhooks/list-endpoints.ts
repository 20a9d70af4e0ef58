import type { OrgContext } from "../../lib/context";
import { endpointView, type EndpointRow } from "./repository";

/** Every live endpoint of the organization, oldest first; at most 25 exist, so one page holds them. */
export async function listEndpoints(ctx: OrgContext) {
  const { results } = await ctx.db
    .prepare("SELECT * FROM webhook_endpoints WHERE org_id = ? AND deleted_at IS NULL ORDER BY created_at, id")
    .bind(ctx.orgId)
    .all<EndpointRow>();
  return results.map((row) => endpointView(row));
}
