import { GENESIS_HASH, hashEntry, type AuditEntry } from "./chain";
import { chainRowsStatement } from "./repository";
import { PREFIXES } from "../../lib/ids";

export { chainRowsStatement };

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
 * is reported; an edited, deleted or reordered row is found this way. The chain must also end where
 * its owner says it does (an envelope's `audit_seq`; an organization's `audit_seq` and
 * `audit_head_hash`), so deleting its last entries is found too.
 */
export async function verifyChain(db: D1Database, chainId: string): Promise<ChainVerification> {
  return (await readVerifiedChain(db, chainId)).verification;
}

/** `verifyChain`, with the rows it read (a caller that also reads the chain's entries: the control history). */
export async function readVerifiedChain(db: D1Database, chainId: string): Promise<{ verification: ChainVerification; rows: ChainRow[] }> {
  // Deleting the newest entries leaves a chain that links perfectly: the owner's own record of its
  // newest entry (advanced in the batch of every entry) is what says they existed.
  const [rows, owner] = await db.batch<unknown>([
    chainRowsStatement(db, chainId),
    // SQL exception: the chain's owner record, read in the batch of its entries so the two are one snapshot: an
    // organization's chain is global (its row keeps the head), any other chain is on a shard, where an
    // envelope's row keeps its length (docs/decisions/shards.md 1: no statement reads both databases).
    chainId.startsWith(`${PREFIXES.organization}_`)
      ? db.prepare("SELECT audit_seq, audit_head_hash FROM organizations WHERE id = ?").bind(chainId)
      : db.prepare("SELECT audit_seq, NULL AS audit_head_hash FROM envelopes WHERE id = ?").bind(chainId),
  ]);
  const recorded = (owner!.results as { audit_seq: number; audit_head_hash: string | null }[])[0];
  const entries = rows!.results as ChainRow[];
  return { verification: await verifyChainRows(entries, recorded?.audit_seq ?? null, recorded?.audit_head_hash ?? null), rows: entries };
}

/**
 * verifyChain on rows already read; `recordedSeq` is the owner's `audit_seq` (null: no owner records
 * one), `recordedHeadHash` the hash of the newest entry the owner recorded (organizations keep it).
 */
export async function verifyChainRows(results: ChainRow[], recordedSeq: number | null, recordedHeadHash: string | null = null): Promise<ChainVerification> {
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
        reason: `the ${recordedHeadHash === null ? "envelope" : "organization"} records ${recordedSeq} entries but the chain ends at ${results.length} (entries were deleted or never written)`,
      },
    };
  }
  if (recordedHeadHash !== null && recordedHeadHash !== prevHash) {
    const newest = results[results.length - 1];
    return {
      verified: false,
      entries: results.length,
      first_broken: {
        seq: newest?.seq ?? 0,
        entry_id: newest?.id ?? null,
        reason: "the newest entry is not the one the organization records (entries were replaced)",
      },
    };
  }
  return { verified: true, entries: results.length, head_hash: prevHash };
}
