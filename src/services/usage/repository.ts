import type { Row } from "../../db/row";
import type { usageLines } from "../../db/schema/kba";
import { newShardId, shardOf } from "../../lib/shards";
import { USAGE_KINDS, type UsageKind } from "./prices";

/** Statements on `usage_lines`. */

export type UsageLineRow = Row<typeof usageLines>;

export type UsageLineInput = {
  orgId: string;
  kind: UsageKind;
  quantity?: number;
  envelopeId: string | null;
  signerId: string | null;
  description: string;
  /** what is billed, once: a second INSERT with the same key fails the whole batch it is in */
  uniqueKey: string;
  at: string;
};

/** The month a usage line counts toward: `YYYY-MM` of its time, UTC. */
export const usageMonth = (iso: string) => iso.slice(0, 7);

/**
 * The INSERT of one usage line, for the batch of the change that causes it. Its `unique_key` makes the
 * line idempotent: a retried or replayed request that would bill the same thing again fails whole.
 */
export function usageLineInsert(db: D1Database, line: UsageLineInput): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO usage_lines (id, org_id, month, kind, quantity, unit_cents, envelope_id, signer_id, description, unique_key, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      // the line's shard (docs/decisions/shards.md 2): its envelope's (every line is written in its envelope's batch)
      newShardId("usageLine", shardOf(line.envelopeId ?? line.signerId ?? "")),
      line.orgId,
      usageMonth(line.at),
      line.kind,
      line.quantity ?? 1,
      USAGE_KINDS[line.kind].unitCents,
      line.envelopeId,
      line.signerId,
      line.description,
      line.uniqueKey,
      line.at,
    );
}

export type UsageLineListed = Pick<UsageLineRow, "id" | "kind" | "quantity" | "unit_cents" | "envelope_id" | "signer_id" | "description" | "created_at">;

/** An organization's usage lines of a month on one shard, oldest first (getUsage merges the shards'). */
export async function listUsageLines(db: D1Database, orgId: string, month: string): Promise<UsageLineListed[]> {
  const { results } = await db
    .prepare("SELECT id, kind, quantity, unit_cents, envelope_id, signer_id, description, created_at FROM usage_lines WHERE org_id = ? AND month = ? ORDER BY created_at, rowid")
    .bind(orgId, month)
    .all<UsageLineListed>();
  return results;
}
