import type { OrgContext } from "../../lib/context";
import { serializeControlKey, type ControlKey } from "./add-control-key";
import { listControlKeys } from "./repository";

/** The caller's control keys, oldest first (public keys only: the service never holds a private one). */
export async function listOrgControlKeys(ctx: OrgContext): Promise<ControlKey[]> {
  return (await listControlKeys(ctx.global, ctx.orgId)).map(serializeControlKey);
}
