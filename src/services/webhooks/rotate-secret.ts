import type { OrgContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { addSeconds, nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { endpointSecretRotate, endpointView, getEndpoint } from "./repository";
import { newWebhookSecret } from "./signing";

export const ROTATION_GRACE_SECONDS = 48 * 3600;

/**
 * Issues a new secret and opens the 48 h window in which every delivery is signed with both the new
 * and the replaced secret (spec 5.4). Rotating again inside the window replaces the older secret:
 * only the one in use just before this rotation keeps signing. An unsigned (legacy) endpoint gets its
 * first secret and no window. The update is guarded on the secret it read, so of two racing
 * rotations one wins and the other is a 409 (no secret is handed out that never took effect).
 */
export async function rotateSecret(ctx: OrgContext, input: { endpointId: string }) {
  const db = ctx.global;
  const current = await getEndpoint(db, ctx.orgId, input.endpointId);
  const secret = newWebhookSecret();
  const at = nowIso();
  const graceExpiresAt = current.secret ? addSeconds(at, ROTATION_GRACE_SECONDS) : null;
  const results = await commitWithOrgAudit(
    db,
    { orgId: ctx.orgId, action: "webhook_endpoint.secret_rotated", actor: ctx.actor, data: { endpoint_id: current.id, grace_expires_at: graceExpiresAt }, at },
    [endpointSecretRotate(db, { id: current.id, orgId: ctx.orgId, secret, currentSecret: current.secret, graceExpiresAt, at })],
    { guarded: true },
  );
  if (results[0]?.meta.changes !== 1) throw conflict("The endpoint changed while its secret was being rotated; retry");
  return { endpoint: endpointView(await getEndpoint(db, ctx.orgId, current.id)), secret };
}
