import { env, runDurableObjectAlarm } from "cloudflare:test";
import { expect } from "vitest";
import { call } from "./api";
import { vaulted, type Party } from "./control";
import { shardDbOf } from "./shards";

/** `n` records vaulted by `owner` (one after another: each vault-in on its organization's current shard). */
export async function vaultedRecords(owner: Party, n: number): Promise<{ vaultId: string; envelopeId: string }[]> {
  const records: { vaultId: string; envelopeId: string }[] = [];
  for (let i = 0; i < n; i++) {
    const v = await vaulted(owner);
    records.push({ vaultId: v.vaultId, envelopeId: v.e.envelope_id });
  }
  return records;
}

/** The pool's Durable Object (src/jobs/pool-transfer.ts). */
export const poolStub = (poolId: string) => env.POOL_TRANSFER!.get(env.POOL_TRANSFER!.idFromName(poolId));

/** POST /partner/vault/pools that must succeed (202): the pool. */
export async function offeredPool(from: Party, to: Party, vaultIds: string[], kind: "assignment" | "pledge" = "assignment", headers: Record<string, string> = {}) {
  const res = await call("POST", "/partner/vault/pools", { key: from.key, body: { kind, to_org_id: to.orgId, vault_ids: vaultIds }, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.data as Record<string, any> & { pool_id: string };
}

type PoolRowState = { status: string; completed_at: string | null };
const poolRow = (poolId: string) => shardDbOf(poolId).prepare("SELECT status, completed_at FROM vault_pools WHERE id = ?").bind(poolId).first<PoolRowState>();

/** Drives an accepted pool's Durable Object until every record moved and the object holds no run. */
export async function moveToEnd(poolId: string, maxRounds = 500): Promise<void> {
  const stub = poolStub(poolId);
  for (let i = 0; i < maxRounds; i++) {
    await runDurableObjectAlarm(stub);
    const row = await poolRow(poolId);
    if (row?.completed_at && !(await stub.state()).run) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`pool ${poolId} did not complete after ${maxRounds} rounds`);
}

/** The chain entries that moved `vaultId`'s control, with the pool each names. */
export async function moves(envelopeId: string): Promise<{ pool_id: string | null; to_org_id: string }[]> {
  const { results } = await shardDbOf(envelopeId)
    .prepare("SELECT json_extract(data, '$.pool_id') AS pool_id, json_extract(data, '$.to_org_id') AS to_org_id FROM audit_log WHERE chain_id = ? AND action = 'vault.control_transferred' ORDER BY seq")
    .bind(envelopeId)
    .all<{ pool_id: string | null; to_org_id: string }>();
  return results;
}

/** Events of `type` for `orgId` on every shard. */
export async function eventsOf(type: string, orgId: string, shardDbs: D1Database[]): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  for (const db of shardDbs) {
    const { results } = await db.prepare("SELECT data FROM events WHERE type = ? AND org_id = ?").bind(type, orgId).all<{ data: string }>();
    out.push(...results.map((r) => JSON.parse(r.data)));
  }
  return out;
}
