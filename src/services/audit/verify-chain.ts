import { GENESIS_HASH, hashEntry, type AuditEntry } from "./chain";

export type ChainVerification =
  | { verified: true; entries: number; head_hash: string }
  | {
      verified: false;
      entries: number;
      first_broken: { seq: number; entry_id: string | null; reason: string };
    };

type Row = Omit<AuditEntry, "data"> & { data: string; hash: string };

/**
 * Walks a chain from its first entry: each entry must follow its predecessor's sequence number,
 * name its predecessor's hash, and hash to the value stored with it. The first entry that does not
 * is reported; an edited, deleted or reordered row is found this way. For an envelope's chain, the
 * chain must also end where the envelope says it does, so deleting its last entries is found too.
 */
export async function verifyChain(db: D1Database, chainId: string): Promise<ChainVerification> {
  const { results } = await db
    .prepare(
      `SELECT id, org_id, chain_id, seq, action, actor_type, actor_id, ip, user_agent, data, created_at, prev_hash, hash
       FROM audit_log WHERE chain_id = ? ORDER BY seq ASC`,
    )
    .bind(chainId)
    .all<Row>();
  let prevHash = GENESIS_HASH;
  let expectedSeq = 1;
  for (const row of results) {
    const broken = (reason: string): ChainVerification => ({
      verified: false,
      entries: results.length,
      first_broken: { seq: row.seq, entry_id: row.id, reason },
    });
    if (row.seq !== expectedSeq) return broken(`expected entry ${expectedSeq}, found ${row.seq}`);
    if (row.prev_hash !== prevHash) return broken("does not link to the previous entry's hash");
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(row.data) as Record<string, unknown>;
    } catch {
      return broken("entry data is not readable");
    }
    const { hash, ...rest } = row;
    const recomputed = await hashEntry({ ...rest, data });
    if (recomputed !== hash) return broken("content does not match its hash (the entry was altered)");
    prevHash = hash;
    expectedSeq += 1;
  }
  // Deleting the newest entries leaves a chain that links perfectly: an envelope's own record of its
  // newest sequence number (`audit_seq`, advanced in the batch of every entry) is what says they existed.
  const envelope = await db.prepare("SELECT audit_seq FROM envelopes WHERE id = ?").bind(chainId).first<{ audit_seq: number }>();
  if (envelope && envelope.audit_seq !== results.length) {
    return {
      verified: false,
      entries: results.length,
      first_broken: {
        seq: results.length + 1,
        entry_id: null,
        reason: `the envelope records ${envelope.audit_seq} entries but the chain ends at ${results.length} (entries were deleted or never written)`,
      },
    };
  }
  return { verified: true, entries: results.length, head_hash: prevHash };
}
