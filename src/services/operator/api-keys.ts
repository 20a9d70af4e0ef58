import { rateLimiterFor, type KeyRecord } from "../../../durable-objects/rate-limiter";
import type { Env } from "../../env";
import { sha256Hex } from "../../lib/crypto";
import { notFound } from "../../lib/errors";
import { newId, newRawApiKey } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import type { Actor } from "../../lib/actor";
import { commitWithOrgAudit } from "../audit/org-chain";
import { assertOrgExists } from "./orgs";

export const DEFAULT_RATE_LIMIT_RPM = 60;

type KeyRow = {
  id: string;
  org_id: string;
  name: string | null;
  key_hash: string;
  key_prefix: string;
  scopes: string;
  rate_limit_rpm: number;
  active: number;
  last_used_at: string | null;
  created_at: string;
  updated_at: string;
};

const displayPrefix = (raw: string) => raw.slice(0, 7);

function toRecord(row: KeyRow): KeyRecord {
  return {
    keyId: row.id,
    orgId: row.org_id,
    scopes: JSON.parse(row.scopes) as string[],
    rateLimitRpm: row.rate_limit_rpm,
    active: row.active === 1,
  };
}

export function serializeKey(row: KeyRow) {
  return {
    key_id: row.id,
    org_id: row.org_id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: JSON.parse(row.scopes) as string[],
    rate_limit_rpm: row.rate_limit_rpm,
    active: row.active === 1,
    last_used_at: row.last_used_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

async function loadKey(db: D1Database, keyId: string): Promise<KeyRow> {
  const row = await db.prepare("SELECT * FROM api_keys WHERE id = ?").bind(keyId).first<KeyRow>();
  if (!row) throw notFound("API key");
  return row;
}

/** Provisions a key; the raw value is returned this once and only its SHA-256 is kept. */
export async function createApiKey(
  env: Env,
  input: { orgId: string; actor: Actor; scopes: string[]; rateLimitRpm?: number; name?: string },
) {
  const db = env.DB;
  await assertOrgExists(db, input.orgId);
  const raw = newRawApiKey();
  const keyId = newId("apiKeyId");
  const at = nowIso();
  const rpm = input.rateLimitRpm ?? DEFAULT_RATE_LIMIT_RPM;
  await commitWithOrgAudit(
    db,
    { orgId: input.orgId, action: "api_key.created", actor: input.actor, data: { key_id: keyId, scopes: input.scopes, rate_limit_rpm: rpm }, at },
    [
      db
        .prepare(
          `INSERT INTO api_keys (id, org_id, name, key_hash, key_prefix, scopes, rate_limit_rpm, active, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
        )
        .bind(keyId, input.orgId, input.name ?? null, await sha256Hex(raw), displayPrefix(raw), JSON.stringify(input.scopes), rpm, at, at),
    ],
  );
  return { ...serializeKey(await loadKey(db, keyId)), api_key: raw };
}

/**
 * Replaces the key's hash in one UPDATE, so at no instant are both raw keys valid in D1; then the old
 * key's limiter forgets it and the new one learns it before the call returns, so the old raw key is
 * refused from the next request on.
 */
export async function rotateApiKey(env: Env, input: { keyId: string; actor: Actor }) {
  const db = env.DB;
  const before = await loadKey(db, input.keyId);
  const raw = newRawApiKey();
  const hash = await sha256Hex(raw);
  const at = nowIso();
  await commitWithOrgAudit(
    db,
    { orgId: before.org_id, action: "api_key.rotated", actor: input.actor, data: { key_id: before.id }, at },
    [
      db
        .prepare("UPDATE api_keys SET key_hash = ?, key_prefix = ?, updated_at = ? WHERE id = ?")
        .bind(hash, displayPrefix(raw), at, before.id),
    ],
  );
  const after = await loadKey(db, before.id);
  await rateLimiterFor(env, before.key_hash).refresh(null);
  await rateLimiterFor(env, hash).refresh(toRecord(after));
  return { ...serializeKey(after), api_key: raw };
}

/** Re-scope, re-limit, (de)activate: the same raw key keeps working unless deactivated. */
export async function updateApiKey(
  env: Env,
  input: { keyId: string; actor: Actor; scopes?: string[]; rateLimitRpm?: number; active?: boolean },
) {
  const db = env.DB;
  const before = await loadKey(db, input.keyId);
  const changes: Record<string, string | number> = {};
  if (input.scopes !== undefined) changes.scopes = JSON.stringify(input.scopes);
  if (input.rateLimitRpm !== undefined) changes.rate_limit_rpm = input.rateLimitRpm;
  if (input.active !== undefined) changes.active = input.active ? 1 : 0;
  const at = nowIso();
  const columns = Object.keys(changes);
  await commitWithOrgAudit(
    db,
    {
      orgId: before.org_id,
      action: "api_key.updated",
      actor: input.actor,
      data: { key_id: before.id, scopes: input.scopes, rate_limit_rpm: input.rateLimitRpm, active: input.active },
      at,
    },
    [
      db
        .prepare(`UPDATE api_keys SET updated_at = ?${columns.map((c) => `, ${c} = ?`).join("")} WHERE id = ?`)
        .bind(at, ...columns.map((c) => changes[c]!), before.id),
    ],
  );
  const after = await loadKey(db, before.id);
  await rateLimiterFor(env, after.key_hash).refresh(toRecord(after));
  return serializeKey(after);
}

/** Flushes the limiter's pending `last_used_at` first, so the operator sees the key's latest use. */
export async function getApiKey(env: Env, keyId: string) {
  const key = await loadKey(env.DB, keyId);
  await rateLimiterFor(env, key.key_hash).flush();
  return serializeKey(await loadKey(env.DB, keyId));
}
