import type { OrgContext } from "../../lib/context";
import { endpointView, listLiveEndpoints } from "./repository";

/** Every live endpoint of the organization, oldest first; at most 25 exist, so one page holds them. */
export async function listEndpoints(ctx: OrgContext) {
  return (await listLiveEndpoints(ctx.global, ctx.orgId)).map((row) => endpointView(row));
}
