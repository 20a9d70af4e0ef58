import type { OrgContext } from "../../lib/context";
import { conflict, notFound } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { controlKeyDeleteGuarded, listControlKeys } from "./repository";
import { verifyControlSignature } from "./signature";

/**
 * Deletes one of the caller's control keys (DESIGN.md 9). Always signed (an organization that has the
 * key has keys): a Control-Signature by one of its keys, the deleted one included, over
 * `{ action: "delete_key", kid, iat }`. Deleting the last key is allowed: the organization then acts
 * on its API key alone again (docs/decisions/control-keys.md). Unknown kid (or another
 * organization's): 404. The deletion and its `control_key.deleted` entry commit in one batch, guarded
 * on the signing key still being registered.
 */
export async function deleteControlKey(ctx: OrgContext, input: { kid: string; signature: string | undefined }): Promise<{ kid: string; deleted: true }> {
  const keys = await listControlKeys(ctx.global, ctx.orgId);
  const key = keys.find((k) => k.kid === input.kid);
  if (!key) throw notFound("Control key");
  const signature = await verifyControlSignature(ctx.global, { orgId: ctx.orgId, header: input.signature, expected: { action: "delete_key", kid: key.kid }, keys });
  // never null: the organization has the key found above
  if (!signature) throw notFound("Control key");
  const at = nowIso();
  const [deleted] = await commitWithOrgAudit(
    ctx.global,
    { orgId: ctx.orgId, action: "control_key.deleted", actor: ctx.actor, data: { kid: key.kid, alg: key.alg, control_signature: signature }, at },
    [controlKeyDeleteGuarded(ctx.global, ctx.orgId, key.kid, signature.kid)],
    { guarded: true },
  );
  if (deleted?.meta.changes !== 1) {
    const still = (await listControlKeys(ctx.global, ctx.orgId)).some((k) => k.kid === key.kid);
    if (!still) throw notFound("Control key");
    throw conflict("The key that signed this deletion was deleted meanwhile: sign with a key the organization still has", { kid: key.kid }, "control_keys_changed");
  }
  return { kid: key.kid, deleted: true };
}
