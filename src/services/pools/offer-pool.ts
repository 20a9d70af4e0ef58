import canonicalize from "canonicalize";
import { onShard, type OrgContext, type RequestContext } from "../../lib/context";
import { sha256Hex } from "../../lib/crypto";
import { conflict, type ErrorCodesByStatus, unprocessable } from "../../lib/errors";
import { newShardId, shardDb, shardOf } from "../../lib/shards";
import { nowIso } from "../../lib/time";
import { apiIssue, type ApiIssue } from "../../lib/validation";
import type { TransferKind } from "../../db/schema";
import { findOrganization } from "../organizations/repository";
import { orgAnchorInsert, orgShardInsert } from "../shards/repository";
import { TRANSFER_TTL_MS, ALREADY_PLEDGED } from "../control/offer-transfer";
import { isPendingTransferConflict, poolHoldInsert, poolHoldsRelease, readPoolCandidates, type PoolCandidate } from "../control/repository";
import { verifyPoolSignature } from "../control/signature";
import { CONTROL_CLOSED, NOT_CONTROLLER, TRANSFER_PENDING } from "../control/state";
import { spendJti } from "./jti";
import { poolInsert, poolReleased, poolSettle, poolShards, type PoolRow } from "./repository";
import { poolView, type PoolView } from "./view";

/** At most this many records in one pool. */
export const POOL_MAX = 10_000;
/** Records read or held per statement (docs/decisions/d1-statement-budget.md: lists travel as one json_each parameter). */
export const POOL_STATEMENT_ROWS = 1_000;

/** The manifest's entries: every record's id and document hash, sorted by vault_id. */
export type ManifestEntry = { vault_id: string; document_hash: string };

/** `manifest_sha256`: the SHA-256 (hex) of the manifest's `data` as RFC 8785 canonical JSON. */
export const manifestSha256 = (data: ManifestEntry[]): Promise<string> => sha256Hex(canonicalize(data)!);

const chunks = <T>(items: T[], size: number): T[][] => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** The records by shard, each shard's in vault_id order. */
function byShard(vaultIds: string[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const id of [...vaultIds].sort()) out.set(shardOf(id), [...(out.get(shardOf(id)) ?? []), id]);
  return out;
}

/** Reads every named record (from its shard, up to 1,000 a statement). */
async function readCandidates(ctx: OrgContext, vaultIds: string[]): Promise<Map<string, PoolCandidate>> {
  const found = new Map<string, PoolCandidate>();
  for (const [shard, ids] of byShard(vaultIds)) {
    if (!shardDb(ctx.env, shard)) continue; // a shard this deployment does not bind holds none of them
    const db = onShard(ctx, shard, true).db;
    for (const part of chunks(ids, POOL_STATEMENT_ROWS)) for (const row of await readPoolCandidates(db, part)) found.set(row.id, row);
  }
  return found;
}

/** Why each record cannot join the pool (empty: every one can), one issue per record, in the order given. */
function offenders(vaultIds: string[], found: Map<string, PoolCandidate>, orgId: string, kind: TransferKind): ApiIssue[] {
  const issues: ApiIssue[] = [];
  vaultIds.forEach((id, i) => {
    const r = found.get(id);
    const path = ["vault_ids", i];
    // a record the caller does not control is refused the same way whether or not it exists elsewhere
    if (!r || r.controller_org_id !== orgId) issues.push(apiIssue(path, "a record the caller controls", id, "the caller does not control this record", NOT_CONTROLLER));
    else if (r.control_status !== "active") issues.push(apiIssue(path, "an active record", id, `control of this record is closed: it is ${r.control_status}`, CONTROL_CLOSED));
    else if (r.pending_id) issues.push(apiIssue(path, "a record with no transfer pending", id, r.pending_pool_id ? `this record is in pool ${r.pending_pool_id}` : `transfer ${r.pending_id} of this record is pending`, TRANSFER_PENDING));
    else if (kind === "pledge" && r.pledgor_org_id) issues.push(apiIssue(path, "a record not held under a pledge", id, "this record is held under a pledge: release it before pledging it", ALREADY_PLEDGED));
  });
  return issues;
}

const refuse = (issues: ApiIssue[]) =>
  unprocessable(`${issues.length} of the records cannot join the pool (a pool is all or nothing): each is listed in details`, issues, "pool_refused");

/**
 * POST /partner/vault/pools (docs/control.md "Pools"): the controller offers up to 10,000 records at
 * once, as one assignment or one pledge, to another organization. All or nothing: any record the caller
 * does not control, not active, with a transfer pending (or, for a pledge, held under a pledge) makes
 * the whole request 422, listing every offender. The Control-Signature (if the caller has control keys)
 * covers the body by its `body_sha256` and a fresh `jti`.
 *
 * The pool row is written first (`preparing`, on the caller's current shard), then each record is held
 * by a pending transfer naming the pool on its own shard (1,000 a statement, each written only where the
 * record is still the caller's and active; a record offered meanwhile fails its statement on the unique
 * pending index), then the pool becomes `pending`. A lost race releases every hold and answers the
 * offenders as found then (or 409 when none is left to name). A crash halfway leaves the pool
 * `preparing`: the minute job cancels it and releases its holds (expire-pools.ts).
 */
export async function offerPool(
  ctx: OrgContext,
  input: { kind: TransferKind; toOrgId: string; vaultIds: string[]; reference: string | null; body: unknown; signatureHeader: string | undefined },
): Promise<PoolView> {
  const seen = new Map<string, number>();
  const dupes: ApiIssue[] = [];
  input.vaultIds.forEach((id, i) => {
    if (seen.has(id)) dupes.push(apiIssue(["vault_ids", i], "each record once", id, `already listed at ${seen.get(id)}`, "duplicate"));
    else seen.set(id, i);
  });
  if (dupes.length) throw refuse(dupes);
  if (input.toOrgId === ctx.orgId) {
    throw unprocessable("to_org_id is the caller: a pool goes to another organization", [apiIssue(["to_org_id"], "another organization", input.toOrgId, "must name another organization")]);
  }
  if (!(await findOrganization(ctx.global, input.toOrgId))) {
    throw unprocessable("to_org_id names no organization", [apiIssue(["to_org_id"], "an existing organization", input.toOrgId, "unknown organization")]);
  }
  const found = await readCandidates(ctx, input.vaultIds);
  const issues = offenders(input.vaultIds, found, ctx.orgId, input.kind);
  if (issues.length) throw refuse(issues);
  const signature = await verifyPoolSignature(ctx.global, { orgId: ctx.orgId, header: input.signatureHeader, action: "pool_offer", body: input.body });

  const manifest = input.vaultIds.map((id) => ({ vault_id: id, document_hash: found.get(id)!.document_hash })).sort((a, b) => (a.vault_id < b.vault_id ? -1 : 1));
  const shards = byShard(input.vaultIds);
  const at = nowIso();
  const pool: PoolRow = {
    id: newShardId("pool", ctx.shardId),
    kind: input.kind,
    from_org_id: ctx.orgId,
    to_org_id: input.toOrgId,
    status: "preparing",
    reference: input.reference,
    count: input.vaultIds.length,
    manifest_sha256: await manifestSha256(manifest),
    shards: JSON.stringify([...shards.keys()]),
    offer_signature: signature ? JSON.stringify({ kid: signature.kid, jws: signature.jws }) : null,
    answer_signature: null,
    created_at: at,
    expires_at: new Date(Date.parse(at) + TRANSFER_TTL_MS).toISOString(),
    settled_at: null,
    completed_at: null,
    released_at: null,
  };
  if (signature) await spendJti(ctx, signature.jti, at);
  // The receiver's placement first (docs/decisions/shards.md 4): each record shard joins its shard set, so
  // its book finds the records once they move. Idempotent; a pool that never completes leaves only extra shards.
  await ctx.global.batch([...shards.keys()].map((shard) => orgShardInsert(ctx.global, { orgId: input.toOrgId, shard, reason: "vault", at })));
  await poolInsert(ctx.db, pool).run();

  let held = true;
  try {
    for (const [shard, ids] of shards) {
      const db = onShard(ctx, shard, true).db;
      for (const part of chunks(ids, POOL_STATEMENT_ROWS)) {
        const holds = part.map((vault_id) => ({ id: newShardId("transfer", shard), vault_id }));
        const [, insert] = await db.batch([
          orgAnchorInsert(db, input.toOrgId, at),
          poolHoldInsert(db, { poolId: pool.id, kind: input.kind, fromOrgId: ctx.orgId, toOrgId: input.toOrgId, reference: input.reference, at, expiresAt: pool.expires_at, holds }),
        ]);
        if (insert!.meta.changes !== holds.length) throw LOST_RACE;
      }
    }
  } catch (err) {
    if (err !== LOST_RACE && !isPendingTransferConflict(err)) throw err;
    held = false;
  }
  if (!held) {
    await releasePool(ctx, pool, "cancelled", { from: "preparing", at: nowIso() });
    const now = offenders(input.vaultIds, await readCandidates(ctx, input.vaultIds), ctx.orgId, input.kind);
    if (now.length) throw refuse(now);
    throw conflict("A record of the pool changed while the pool was offered; nothing was held: retry", undefined, TRANSFER_PENDING);
  }
  await poolSettle(ctx.db, { poolId: pool.id, from: "preparing", to: "pending", at }).run();
  return poolView({ ...pool, status: "pending" });
}

const LOST_RACE = new Error("a record of the pool was not held");

/**
 * Ends a pool that will not be accepted (`status`: rejected, cancelled, expired) and releases every hold
 * it has on every shard, then records the release. `from`: the status it must still have (null: it was
 * already settled, only its holds are released). Each step is idempotent, so a crash between them is
 * finished by the minute job (expire-pools.ts). 0 when the pool was no longer `from`.
 */
export async function releasePool(
  ctx: RequestContext,
  pool: PoolRow,
  status: "rejected" | "cancelled" | "expired",
  input: { from: PoolRow["status"] | null; at: string; answerSignature?: string | null; unexpired?: boolean },
): Promise<boolean> {
  const home = onShard(ctx, shardOf(pool.id), true).db;
  if (input.from) {
    const res = await poolSettle(home, { poolId: pool.id, from: input.from, to: status, at: input.at, answerSignature: input.answerSignature, unexpired: input.unexpired }).run();
    if (res.meta.changes !== 1) return false;
  }
  for (const shard of poolShards(pool)) {
    if (!shardDb(ctx.env, shard)) continue;
    await poolHoldsRelease(onShard(ctx, shard, true).db, pool.id, status, input.at).run();
  }
  await poolReleased(home, pool.id, input.at).run();
  return true;
}

export const OFFER_POOL_ERRORS: ErrorCodesByStatus = { 409: [TRANSFER_PENDING], 422: ["pool_refused"] };
