import type { KeyRecord } from "../../../../durable-objects/rate-limiter";
import { notFound } from "../../../lib/errors";
import type { Scope } from "../../../lib/scopes";
import type { ApiKey } from "../schema";

export const DEFAULT_RATE_LIMIT_RPM = 60;

export type KeyRow = {
  id: string;
  org_id: string;
  name: string | null;
  key_hash: string;
  key_prefix: string;
  /** JSON array of scopes, written only from a validated request body */
  scopes: string;
  rate_limit_rpm: number;
  active: number;
  last_used_at: string | null;
  created_at: string;
  updated_at: string;
};

/** The first characters of the raw key, kept to tell keys apart (`lk_3f9a`). */
export const displayPrefix = (raw: string) => raw.slice(0, 7);

const scopesOf = (row: KeyRow): Scope[] => JSON.parse(row.scopes);

/** What the key's RateLimiter caches to admit requests without D1. */
export function limiterRecord(row: KeyRow): KeyRecord {
  return { keyId: row.id, orgId: row.org_id, scopes: scopesOf(row), rateLimitRpm: row.rate_limit_rpm, active: row.active === 1, version: row.updated_at };
}

export function serializeKey(row: KeyRow): ApiKey {
  return {
    key_id: row.id,
    org_id: row.org_id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: scopesOf(row),
    rate_limit_rpm: row.rate_limit_rpm,
    active: row.active === 1,
    last_used_at: row.last_used_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function loadKey(db: D1Database, keyId: string): Promise<KeyRow> {
  const row = await db.prepare("SELECT * FROM api_keys WHERE id = ?").bind(keyId).first<KeyRow>();
  if (!row) throw notFound("API key");
  return row;
}
