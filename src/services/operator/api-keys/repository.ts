import type { GlobalDb } from "../../../lib/shards";
import type { KeyRecord } from "../../../../durable-objects/rate-limiter";
import type { Row } from "../../../db/row";
import type { apiKeys, idempotencyKeys } from "../../../db/schema/api-keys";
import { notFound } from "../../../lib/errors";
import type { Scope } from "../../../lib/scopes";
import type { ApiKey } from "../schema";

export const DEFAULT_RATE_LIMIT_RPM = 60;

/** An `api_keys` row; `scopes` is the JSON array of scopes, written only from a validated request body. */
export type KeyRow = Row<typeof apiKeys>;
export type IdempotencyKeyRow = Row<typeof idempotencyKeys>;

/** The first characters of the raw key, kept to tell keys apart (`lk_3f9a`). */
export const displayPrefix = (raw: string) => raw.slice(0, 7);

const scopesOf = (row: KeyRow): Scope[] => JSON.parse(row.scopes);

/** What the key's RateLimiter caches to admit requests without D1. */
export function limiterRecord(row: LoadedKeyRow): KeyRecord {
  return {
    keyId: row.id,
    orgId: row.org_id,
    scopes: scopesOf(row),
    rateLimitRpm: row.rate_limit_rpm,
    active: row.active === 1,
    currentShardId: row.current_shard_id ?? 1,
    version: row.updated_at,
  };
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

/** A key row with its organization's current shard (what the key's RateLimiter caches for partnerAuth). */
export type LoadedKeyRow = KeyRow & { current_shard_id: number };

export async function loadKey(db: GlobalDb, keyId: string): Promise<LoadedKeyRow> {
  const row = await db
    .prepare("SELECT k.*, (SELECT o.current_shard_id FROM organizations o WHERE o.id = k.org_id) AS current_shard_id FROM api_keys k WHERE k.id = ?")
    .bind(keyId)
    .first<LoadedKeyRow>();
  if (!row) throw notFound("API key");
  return row;
}

export function apiKeyInsert(
  db: GlobalDb,
  key: Pick<KeyRow, "id" | "org_id" | "name" | "key_hash" | "key_prefix" | "scopes" | "rate_limit_rpm"> & { at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO api_keys (id, org_id, name, key_hash, key_prefix, scopes, rate_limit_rpm, active, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
    )
    .bind(key.id, key.org_id, key.name, key.key_hash, key.key_prefix, key.scopes, key.rate_limit_rpm, key.at, key.at);
}

/** Replaces the key's hash, guarded on the hash it replaces (`changes` 0: another rotation won). */
export function apiKeyRotate(db: GlobalDb, key: { id: string; beforeHash: string; hash: string; prefix: string; at: string }): D1PreparedStatement {
  return db.prepare("UPDATE api_keys SET key_hash = ?, key_prefix = ?, updated_at = ? WHERE id = ? AND key_hash = ?").bind(key.hash, key.prefix, key.at, key.id, key.beforeHash);
}

/** Columns the operator may change on a key (the keys are trusted names, never request input). */
export type ApiKeyChanges = Partial<Pick<KeyRow, "scopes" | "rate_limit_rpm" | "active">>;

/** The UPDATE of the given columns (and `updated_at`). */
export function apiKeyUpdate(db: GlobalDb, keyId: string, changes: ApiKeyChanges, at: string): D1PreparedStatement {
  const columns = Object.keys(changes) as (keyof ApiKeyChanges)[];
  return db
    .prepare(`UPDATE api_keys SET updated_at = ?${columns.map((c) => `, ${c} = ?`).join("")} WHERE id = ?`)
    .bind(at, ...columns.map((c) => changes[c]!), keyId);
}

/**
 * Moves every key of the organization's record version forward (`updated_at`), in the batch that moves
 * its current shard: the record pushed to each key's RateLimiter afterwards, or read from D1 by a
 * limiter whose push was lost, is then newer than any it holds.
 */
export function apiKeysTouchForOrg(db: GlobalDb, orgId: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE api_keys SET updated_at = ? WHERE org_id = ?").bind(at, orgId);
}

/** Every key of the organization as its RateLimiter caches it (with the organization's current shard). */
export async function loadKeysOfOrg(db: GlobalDb, orgId: string): Promise<LoadedKeyRow[]> {
  const { results } = await db
    .prepare("SELECT k.*, (SELECT o.current_shard_id FROM organizations o WHERE o.id = k.org_id) AS current_shard_id FROM api_keys k WHERE k.org_id = ?")
    .bind(orgId)
    .all<LoadedKeyRow>();
  return results;
}

// ---- idempotency_keys (middleware/idempotency.ts) ----

/**
 * Claims an Idempotency-Key for a request: an INSERT that only one concurrent request can win. A
 * record older than `cutoff` (the 24 h window) or an `in_progress` claim older than `staleCutoff` (its
 * request died) is taken over. `meta.changes` 0: the key is held (read it with getIdempotencyRecord).
 */
export function claimIdempotencyKey(
  db: GlobalDb,
  claim: { keyId: string; key: string; orgId: string; requestHash: string; claimedAt: string; cutoff: string; staleCutoff: string },
): Promise<D1Result> {
  return db
    .prepare(
      `INSERT INTO idempotency_keys (key_id, idempotency_key, org_id, request_hash, state, created_at)
       VALUES (?, ?, ?, ?, 'in_progress', ?)
       ON CONFLICT (key_id, idempotency_key) DO UPDATE SET
         request_hash = excluded.request_hash, state = 'in_progress', response_status = NULL,
         response_body = NULL, created_at = excluded.created_at
       WHERE idempotency_keys.created_at < ? OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.created_at < ?)`,
    )
    .bind(claim.keyId, claim.key, claim.orgId, claim.requestHash, claim.claimedAt, claim.cutoff, claim.staleCutoff)
    .run();
}

export function getIdempotencyRecord(
  db: GlobalDb,
  keyId: string,
  key: string,
): Promise<Pick<IdempotencyKeyRow, "request_hash" | "state" | "response_status" | "response_body"> | null> {
  return db
    .prepare("SELECT request_hash, state, response_status, response_body FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?")
    .bind(keyId, key)
    .first<Pick<IdempotencyKeyRow, "request_hash" | "state" | "response_status" | "response_body">>();
}

/** Releases this request's claim (guarded on it: a claim taken over by a retry is left alone). */
export function releaseIdempotencyKey(db: GlobalDb, claim: { keyId: string; key: string; claimedAt: string }): Promise<D1Result> {
  return db
    .prepare("DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ? AND state = 'in_progress' AND created_at = ?")
    .bind(claim.keyId, claim.key, claim.claimedAt)
    .run();
}

/** Stores the response under this request's claim (guarded on it, as releaseIdempotencyKey). */
export function completeIdempotencyKey(db: GlobalDb, claim: { keyId: string; key: string; claimedAt: string }, response: { status: number; body: string }): Promise<D1Result> {
  return db
    .prepare(
      `UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ?
       WHERE key_id = ? AND idempotency_key = ? AND state = 'in_progress' AND created_at = ?`,
    )
    .bind(response.status, response.body, claim.keyId, claim.key, claim.claimedAt)
    .run();
}

/**
 * Deletes up to `limit` Idempotency-Key records created before `cutoff`, oldest first. The inner
 * SELECT walks `idempotency_created_idx` from its start, so a run with nothing old enough reads one
 * index entry, however many records there are. A record past the 24 h window answers nothing any more
 * (claimIdempotencyKey takes it over), so deleting it changes no response.
 */
export function pruneIdempotencyKeys(db: GlobalDb, input: { cutoff: string; limit: number }): Promise<D1Result> {
  return db
    .prepare("DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT ?)")
    .bind(input.cutoff, input.limit)
    .run();
}
