import { rateLimiterFor } from "../../../../durable-objects/rate-limiter";
import { sha256Hex } from "../../../lib/crypto";
import type { RequestContext } from "../../../lib/context";
import { newRawApiKey } from "../../../lib/ids";
import { conflict } from "../../../lib/errors";
import { nowIso } from "../../../lib/time";
import { commitWithOrgAudit } from "../../audit/org-chain";
import type { ApiKeyWithSecret } from "../schema";
import { apiKeyRotate, displayPrefix, limiterRecord, loadKey, serializeKey } from "./repository";

/**
 * Replaces the key's hash in one UPDATE, so at no instant are both raw keys valid in D1; then the old
 * key's limiter forgets it and the new one learns it before the call returns, so the old raw key is
 * refused from the next request on.
 */
export async function rotateApiKey(ctx: RequestContext, input: { keyId: string }): Promise<ApiKeyWithSecret> {
  const { global: db, env } = ctx;
  const before = await loadKey(db, input.keyId);
  const raw = newRawApiKey();
  const hash = await sha256Hex(raw);
  const at = nowIso();
  // Guarded on the hash it replaces: of two concurrent rotations one wins, the other is a 409, and no
  // raw key is handed out (and cached as valid by its limiter) that D1 no longer holds.
  const [rotated] = await commitWithOrgAudit(
    db,
    { orgId: before.org_id, action: "api_key.rotated", actor: ctx.actor, data: { key_id: before.id }, at },
    [apiKeyRotate(db, { id: before.id, beforeHash: before.key_hash, hash, prefix: displayPrefix(raw), at })],
    { guarded: true },
  );
  if (rotated?.meta.changes !== 1) throw conflict("The key was rotated concurrently; retry to rotate it again");
  const after = await loadKey(db, before.id);
  await rateLimiterFor(env, before.key_hash).refresh(null);
  // A later rotation may already have replaced this one: then this raw key is dead too.
  await rateLimiterFor(env, hash).refresh(after.key_hash === hash ? limiterRecord(after) : null);
  return { ...serializeKey(after), api_key: raw };
}
