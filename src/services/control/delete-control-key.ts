import type { OrgContext } from "../../lib/context";
import { conflict, type ErrorCodesByStatus, notFound } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { controlJtiInsert, controlKeyDeleteGuarded, isControlJtiConflict, listControlKeys } from "./repository";
import { usedJti, verifyKeySignature } from "./signature";

/**
 * Deletes one of the caller's control keys (docs/control.md). Always signed (an organization that has the
 * key has keys): a Control-Signature by one of its keys, the deleted one included, over
 * `{ action: "delete_key", kid, jti, iat }`. Deleting the last key is allowed: the organization then
 * acts on its API key alone again (docs/decisions/control-keys.md). Unknown kid (or another
 * organization's): 404. The deletion, its `control_key.deleted` entry and the spent `jti` commit in one
 * batch, guarded on the signing key still being registered; a reused `jti`: 403.
 */
export async function deleteControlKey(ctx: OrgContext, input: { kid: string; signature: string | undefined }): Promise<{ kid: string; deleted: true }> {
  const keys = await listControlKeys(ctx.global, ctx.orgId);
  const key = keys.find((k) => k.kid === input.kid);
  if (!key) throw notFound("Control key");
  const signature = await verifyKeySignature(ctx.global, { orgId: ctx.orgId, header: input.signature, action: "delete_key", kid: key.kid, keys });
  // never null: the organization has the key found above
  if (!signature) throw notFound("Control key");
  const at = nowIso();
  // spent only if the key is gone: the deletion happened
  const gone = { sql: "NOT EXISTS (SELECT 1 FROM control_keys WHERE org_id = ? AND kid = ?)", params: [ctx.orgId, key.kid] };
  let deleted: D1Result | undefined;
  try {
    [deleted] = await commitWithOrgAudit(
      ctx.global,
      { orgId: ctx.orgId, action: "control_key.deleted", actor: ctx.actor, data: { kid: key.kid, alg: key.alg, control_signature: { kid: signature.kid, jws: signature.jws } }, at },
      [controlKeyDeleteGuarded(ctx.global, ctx.orgId, key.kid, signature.kid), controlJtiInsert(ctx.global, { orgId: ctx.orgId, jti: signature.jti, at }, gone)],
      { guarded: true },
    );
  } catch (err) {
    if (isControlJtiConflict(err)) throw usedJti();
    throw err;
  }
  if (deleted?.meta.changes !== 1) {
    const still = (await listControlKeys(ctx.global, ctx.orgId)).some((k) => k.kid === key.kid);
    if (!still) throw notFound("Control key");
    throw conflict("The key that signed this deletion was deleted meanwhile: sign with a key the organization still has", { kid: key.kid }, "control_keys_changed");
  }
  return { kid: key.kid, deleted: true };
}

/** Another change to the organization's keys committed first (the request is signed over the key set it saw). */
export const CONTROL_KEYS_CHANGED_ERRORS: ErrorCodesByStatus = { 409: ["control_keys_changed"] };
