import type { OrgContext } from "../../lib/context";
import { shardOf } from "../../lib/shards";
import { listOrganizationNames } from "../organizations/repository";
import { listAcrossShards } from "../shards/fan-out";
import { orgShardSet } from "../shards/repository";
import { listBook, type BookRole, type VaultRecordRow } from "../vault/repository";
import { listPendingTransfersOf, type TransferRow } from "./repository";
import { onShard } from "../../lib/context";
import { controlSummary, namedOrgIds, type ControlSummaryView } from "./view";

/** The book's order: newest vaulted first, then by id (as each shard's query orders it). */
const newestStoredFirst = (a: VaultRecordRow, b: VaultRecordRow): number =>
  a.stored_at === b.stored_at ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.stored_at < b.stored_at ? 1 : -1;

/**
 * GET /partner/vault: the caller's book, newest first: the records it controls (default), originated or
 * has pledged. Each item is the record without its live compliance (GET /partner/vault/:vault_id has
 * it). The records live on their envelopes' shards (docs/decisions/shards.md 4): the page is merged over
 * the organization's shard set (its placements plus every shard holding a record it was offered), a
 * page and its count per shard; then the parties' names in one global read and the page's pending
 * transfers, one read per shard the page touches.
 */
export async function listControlBook(
  ctx: OrgContext,
  input: { role: BookRole; page: number; limit: number },
): Promise<{ rows: ControlSummaryView[]; total: number }> {
  const shards = await orgShardSet(ctx.global, ctx.orgId);
  const { rows, total } = await listAcrossShards(
    ctx,
    shards,
    { limit: input.limit, offset: (input.page - 1) * input.limit },
    (shardCtx, window) => listBook(shardCtx.db, { orgId: ctx.orgId, role: input.role, ...window }),
    newestStoredFirst,
  );
  const orgIds = [...new Set(rows.flatMap(namedOrgIds))];
  const byShard = new Map<number, string[]>();
  for (const r of rows) byShard.set(shardOf(r.id), [...(byShard.get(shardOf(r.id)) ?? []), r.id]);
  const [names, ...pendingByShard] = await Promise.all([
    listOrganizationNames(ctx.global, orgIds),
    ...[...byShard].map(([n, ids]) => listPendingTransfersOf(onShard(ctx, n).db, ids)),
  ]);
  const byId = new Map(names.map((n) => [n.id, n.name]));
  const pendingOf = new Map((pendingByShard as TransferRow[][]).flat().map((t) => [t.vault_id, t]));
  return { rows: rows.map((r) => controlSummary(r, pendingOf.get(r.id) ?? null, byId)), total };
}
