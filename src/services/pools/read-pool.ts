import { onShard, onShardOf, type OrgContext, type RequestContext } from "../../lib/context";
import { conflict, type ErrorCodesByStatus, notFound } from "../../lib/errors";
import { shardDb } from "../../lib/shards";
import { loadSealKey } from "../../pdf";
import { signWithSeal } from "../evidence/attestation";
import { countPoolHolds, poolManifestPage } from "../control/repository";
import { type ManifestEntry, POOL_STATEMENT_ROWS } from "./offer-pool";
import { getPool, poolShards, type PoolRow } from "./repository";
import { poolView, type PoolView } from "./view";

/** 409 `pool_not_completed`: the receipt exists once every record of an accepted pool moved. */
export const POOL_NOT_COMPLETED = "pool_not_completed";
export const POOL_RECEIPT_TYP = "vault-pool-receipt+jws";

/** The pool on the shard its id names, to either of its two organizations; anyone else: 404. */
export async function readPool(caller: OrgContext, poolId: string): Promise<{ ctx: OrgContext; pool: PoolRow }> {
  const ctx = onShardOf(caller, poolId);
  const pool = await getPool(ctx.db, poolId);
  if (!pool || (pool.from_org_id !== ctx.orgId && pool.to_org_id !== ctx.orgId)) throw notFound("Pool");
  return { ctx, pool };
}

/** Records of an accepted pool moved so far: its holds accepted, over every shard. */
export async function movedCount(ctx: RequestContext, pool: PoolRow): Promise<number> {
  if (pool.status !== "accepted") return 0;
  if (pool.completed_at) return pool.count;
  let moved = 0;
  for (const shard of poolShards(pool)) {
    if (shardDb(ctx.env, shard)) moved += (await countPoolHolds(onShard(ctx, shard, true).db, pool.id)).accepted ?? 0;
  }
  return moved;
}

/** GET /partner/vault/pools/:pool_id: the pool with its progress, to either party. */
export async function getPoolView(caller: OrgContext, input: { poolId: string }): Promise<PoolView> {
  const { ctx, pool } = await readPool(caller, input.poolId);
  return poolView(pool, await movedCount(ctx, pool));
}

/**
 * GET /partner/vault/pools/:pool_id/manifest: `[{ vault_id, document_hash }]` sorted by vault_id, read
 * from the holds on every shard (each shard's page in order, merged); its RFC 8785 form hashes to the
 * pool's `manifest_sha256`.
 */
export async function getPoolManifest(caller: OrgContext, input: { poolId: string }): Promise<ManifestEntry[]> {
  const { ctx, pool } = await readPool(caller, input.poolId);
  const all: ManifestEntry[] = [];
  for (const shard of poolShards(pool)) {
    if (!shardDb(ctx.env, shard)) continue;
    const db = onShard(ctx, shard, true).db;
    for (let after = ""; ; ) {
      const page = await poolManifestPage(db, pool.id, after, POOL_STATEMENT_ROWS);
      all.push(...page);
      if (page.length < POOL_STATEMENT_ROWS) break;
      after = page.at(-1)!.vault_id;
    }
  }
  return all.sort((a, b) => (a.vault_id < b.vault_id ? -1 : a.vault_id > b.vault_id ? 1 : 0));
}

/** What the receipt says (docs/control.md "Pools"). */
export type PoolReceipt = {
  pool_id: string;
  manifest_sha256: string;
  kind: PoolRow["kind"];
  from: string;
  to: string;
  accepted_at: string;
  count: number;
  /** the receiver's Control-Signature over its acceptance, when it had control keys */
  control_signature?: { kid: string; jws: string };
};

/**
 * GET /partner/vault/pools/:pool_id/receipt: a compact JWS by the seal (header `x5c`, its certificate
 * chain) over the accepted pool, once every record moved; to either party. Before: 409 `pool_not_completed`.
 */
export async function getPoolReceipt(caller: OrgContext, input: { poolId: string }): Promise<{ jws: string }> {
  const { pool } = await readPool(caller, input.poolId);
  if (pool.status !== "accepted" || !pool.completed_at) {
    throw conflict(
      pool.status === "accepted" ? "The pool's records are still moving: the receipt is sealed once every one has" : `The pool was not accepted: it is ${pool.status}`,
      { status: pool.status },
      POOL_NOT_COMPLETED,
    );
  }
  const receipt: PoolReceipt = {
    pool_id: pool.id,
    manifest_sha256: pool.manifest_sha256,
    kind: pool.kind,
    from: pool.from_org_id,
    to: pool.to_org_id,
    accepted_at: pool.settled_at!,
    count: pool.count,
    ...(pool.answer_signature ? { control_signature: JSON.parse(pool.answer_signature) as { kid: string; jws: string } } : {}),
  };
  const jws = await signWithSeal(await loadSealKey(caller.env), new TextEncoder().encode(JSON.stringify(receipt)), POOL_RECEIPT_TYP);
  return { jws };
}

/** The receipt and manifest of a pool exist once it completed. */
export const POOL_RECEIPT_ERRORS: ErrorCodesByStatus = { 409: [POOL_NOT_COMPLETED] };
