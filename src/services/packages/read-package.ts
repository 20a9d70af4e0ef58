import type { OrgContext } from "../../lib/context";
import { getPackage, packageDetail } from "./repository";

/** GET /document-packages/:id: one live package of the organization with its items; 404 otherwise. */
export async function readPackage(ctx: OrgContext, input: { packageId: string }) {
  const { pkg, items } = await getPackage(ctx.global, ctx.orgId, input.packageId);
  return packageDetail(pkg, items);
}
