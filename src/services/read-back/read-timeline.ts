import type { OrgContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import type { ShardDb } from "../../lib/shards";
import type { AuditLogRow } from "../audit/repository";

/** An entry row of the page, beside the envelope's recorded chain length (null columns: the page is past the chain's end). */
type PageRow = { total: number } & { [K in keyof AuditLogRow]: AuditLogRow[K] | null };

/**
 * One page of the envelope's chain and the chain's length, in one statement: the envelope row (scoped to
 * the organization) joined to the entries whose `seq` falls in the page. Entries are numbered 1, 2, … with
 * no gaps (the (chain_id, seq) unique index and the envelope's `audit_seq` lock), so page `p` of `limit`
 * is the range (`(p-1)·limit`, `p·limit`], read by that index. No row: no such envelope in the
 * organization; one row with null entry columns: a page past the end.
 */
function timelinePageStatement(db: ShardDb, input: { orgId: string; envelopeId: string; after: number; upTo: number }): D1PreparedStatement {
  // SQL exception: the chain's owner row (its org and recorded length) with a page of its entries, one snapshot in one statement.
  return db
    .prepare(
      `SELECT e.audit_seq AS total, a.id, a.org_id, a.chain_id, a.seq, a.action, a.actor_type, a.actor_id, a.ip, a.user_agent, a.data, a.created_at, a.prev_hash, a.hash
       FROM envelopes e LEFT JOIN audit_log a ON a.chain_id = e.id AND a.seq > ?3 AND a.seq <= ?4
       WHERE e.id = ?1 AND e.org_id = ?2
       ORDER BY a.seq`,
    )
    .bind(input.envelopeId, input.orgId, input.after, input.upTo);
}

/**
 * GET /partner/envelopes/:id/events (docs/decisions/read-back.md): the envelope's audit chain, oldest first, each entry
 * exactly as hashed (every hashed member is shown, so a partner can recompute each hash and follow
 * `prev_hash`). Writers never put a signing credential or link into an entry (signers/signing-links.ts),
 * so nothing is filtered here: filtering would break the hashes. `total` is the length the envelope records.
 */
export async function readTimeline(ctx: OrgContext, input: { envelopeId: string; page: number; limit: number }) {
  const after = (input.page - 1) * input.limit;
  const { results } = await timelinePageStatement(ctx.db, { orgId: ctx.orgId, envelopeId: input.envelopeId, after, upTo: after + input.limit }).all<PageRow>();
  if (results.length === 0) throw notFound("Envelope");
  const entries = results.filter((r): r is PageRow & AuditLogRow => r.id !== null);
  return {
    data: entries.map((r) => ({
      id: r.id,
      org_id: r.org_id,
      chain_id: r.chain_id,
      seq: r.seq,
      action: r.action,
      at: r.created_at,
      actor: { type: r.actor_type, id: r.actor_id, ip: r.ip, user_agent: r.user_agent },
      data: JSON.parse(r.data) as Record<string, unknown>,
      prev_hash: r.prev_hash,
      hash: r.hash,
    })),
    meta: { page: input.page, limit: input.limit, total: results[0]!.total },
  };
}
