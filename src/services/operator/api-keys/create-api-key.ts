import { sha256Hex } from "../../../lib/crypto";
import type { RequestContext } from "../../../lib/context";
import { newId, newRawApiKey } from "../../../lib/ids";
import type { Scope } from "../../../lib/scopes";
import { nowIso } from "../../../lib/time";
import { commitWithOrgAudit } from "../../audit/org-chain";
import { assertOrgExists } from "../orgs";
import type { ApiKeyWithSecret } from "../schema";
import { apiKeyInsert, DEFAULT_RATE_LIMIT_RPM, displayPrefix, loadKey, serializeKey } from "./repository";

/** Provisions a key for `orgId`; the raw value is returned this once and only its SHA-256 is kept. */
export async function createApiKey(
  ctx: RequestContext,
  input: { orgId: string; scopes: Scope[]; rateLimitRpm?: number; name?: string },
): Promise<ApiKeyWithSecret> {
  const { global: db } = ctx;
  await assertOrgExists(db, input.orgId);
  const raw = newRawApiKey();
  const keyId = newId("apiKeyId");
  const at = nowIso();
  const rpm = input.rateLimitRpm ?? DEFAULT_RATE_LIMIT_RPM;
  await commitWithOrgAudit(
    db,
    { orgId: input.orgId, action: "api_key.created", actor: ctx.actor, data: { key_id: keyId, scopes: input.scopes, rate_limit_rpm: rpm }, at },
    [
      apiKeyInsert(db, {
        id: keyId,
        org_id: input.orgId,
        name: input.name ?? null,
        key_hash: await sha256Hex(raw),
        key_prefix: displayPrefix(raw),
        scopes: JSON.stringify(input.scopes),
        rate_limit_rpm: rpm,
        at,
      }),
    ],
  );
  return { ...serializeKey(await loadKey(db, keyId)), api_key: raw };
}
