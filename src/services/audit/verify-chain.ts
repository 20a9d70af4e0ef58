import { GENESIS_HASH, hashEntry, type AuditEntry } from "./chain";

export type ChainVerification =
  | { verified: true; entries: number; head_hash: string }
  | {
      verified: false;
      entries: number;
      first_broken: { seq: number; entry_id: string | null; reason: string };
    };

export type ChainRow = Omit<AuditEntry, "data"> & { data: string; hash: string };

/**
 * Walks a chain from its first entry: each entry must follow its predecessor's sequence number,
 * name its predecessor's hash, and hash to the value stored with it. The first entry that does not
 * is reported; an edited, deleted or reordered row is found this way. For an envelope's chain, the
 * chain must also end where the envelope says it does, so deleting its last entries is found too.
 */
export async function verifyChain(db: D1Database, chainId: string): Promise<ChainVerification> {
  const { results } = await chainRowsStatement(db, chainId).all<ChainRow>();
  // Deleting the newest entries leaves a chain that links perfectly: an envelope's own record of its
  // newest sequence number (`audit_seq`, advanced in the batch of every entry) is what says they existed.
  const envelope = await db.prepare("SELECT audit_seq FROM envelopes WHERE id = ?").bind(chainId).first<{ audit_seq: number }>();
  return verifyChainRows(results, envelope?.audit_seq ?? null);
}

/** A chain's entries in order, as verifyChainRows reads them (for a caller that batches its reads). */
export function chainRowsStatement(db: D1Database, chainId: string): D1PreparedStatement {
  return db
    .prepare(
      `SELECT id, org_id, chain_id, seq, action, actor_type, actor_id, ip, user_agent, data, created_at, prev_hash, hash
       FROM audit_log WHERE chain_id = ? ORDER BY seq ASC`,
    )
    .bind(chainId);
}

/** verifyChain on rows already read; `recordedSeq` is the envelope's `audit_seq` (null: not an envelope's chain). */
export async function verifyChainRows(results: ChainRow[], recordedSeq: number | null): Promise<ChainVerification> {
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
  if (recordedSeq !== null && recordedSeq !== results.length) {
    return {
      verified: false,
      entries: results.length,
      first_broken: {
        seq: results.length + 1,
        entry_id: null,
        reason: `the envelope records ${recordedSeq} entries but the chain ends at ${results.length} (entries were deleted or never written)`,
      },
    };
  }
  return { verified: true, entries: results.length, head_hash: prevHash };
}
