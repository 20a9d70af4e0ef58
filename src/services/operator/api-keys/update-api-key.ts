import { rateLimiterFor } from "../../../../durable-objects/rate-limiter";
import type { RequestContext } from "../../../lib/context";
import type { Scope } from "../../../lib/scopes";
import { nowIso } from "../../../lib/time";
import { commitWithOrgAudit } from "../../audit/org-chain";
import type { ApiKey } from "../schema";
import { apiKeyUpdate, limiterRecord, loadKey, serializeKey, type ApiKeyChanges } from "./repository";

/** Re-scope, re-limit, (de)activate: the same raw key keeps working unless deactivated. */
export async function updateApiKey(
  ctx: RequestContext,
  input: { keyId: string; scopes?: Scope[]; rateLimitRpm?: number; active?: boolean },
): Promise<ApiKey> {
  const { global: db, env } = ctx;
  const before = await loadKey(db, input.keyId);
  const changes: ApiKeyChanges = {};
  if (input.scopes !== undefined) changes.scopes = JSON.stringify(input.scopes);
  if (input.rateLimitRpm !== undefined) changes.rate_limit_rpm = input.rateLimitRpm;
  if (input.active !== undefined) changes.active = input.active ? 1 : 0;
  const at = nowIso();
  await commitWithOrgAudit(
    db,
    {
      orgId: before.org_id,
      action: "api_key.updated",
      actor: ctx.actor,
      data: { key_id: before.id, scopes: input.scopes, rate_limit_rpm: input.rateLimitRpm, active: input.active },
      at,
    },
    [apiKeyUpdate(db, before.id, changes, at)],
  );
  const after = await loadKey(db, before.id);
  await rateLimiterFor(env, after.key_hash).refresh(limiterRecord(after));
  return serializeKey(after);
}
