import { sha256Hex } from "../../../lib/crypto";
import { findEvidenceRecord } from "./repository";

/**
 * The evidence record the audit chain names (the `evidence_record_id` of its newest
 * `vault.evidence_record` entry: the bundle packs the record that matches the chain it packs, even if a
 * renewal lands meanwhile), read from R2 and checked against the SHA-256 its row recorded. None named,
 * or a stored object that went missing or changed: null (logged), and the bundle goes without it.
 */
export async function evidenceRecordForChain(
  db: D1Database,
  bucket: R2Bucket,
  vaultId: string,
  entries: { action: string; data: Record<string, unknown> }[],
): Promise<Uint8Array | null> {
  const named = entries.findLast((e) => e.action === "vault.evidence_record")?.data.evidence_record_id;
  if (typeof named !== "string") return null;
  const row = await findEvidenceRecord(db, vaultId, named);
  const object = row ? await bucket.get(row.record_key) : null;
  const bytes = object ? new Uint8Array(await object.arrayBuffer()) : null;
  if (!row || !bytes || (await sha256Hex(bytes)) !== row.record_sha256) {
    console.error(JSON.stringify({ level: "error", msg: "evidence record missing or altered in storage; bundle produced without it", vault_id: vaultId, evidence_record_id: named }));
    return null;
  }
  return bytes;
}
