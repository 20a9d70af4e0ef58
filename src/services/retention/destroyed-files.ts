import { attachmentOf } from "../attachments/value";
import { listEnvelopeDocumentObjects, listSigningFields } from "../documents/repository";
import { vaultKeys } from "../vault/keys";
import { clearPendingDeletions, type VaultRecordRow } from "../vault/repository";

/** One object a destruction deletes: its R2 key, the name the destruction certificate gives it, its SHA-256 where recorded. */
export type DestroyedFile = { key: string; file: string; sha256: string | null };

/** R2 takes at most 1,000 keys per delete. */
const DELETE_CHUNK = 1000;

async function listKeys(bucket: R2Bucket, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor });
    keys.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys;
}

/**
 * Every R2 object a destruction deletes (docs/decisions/retention-and-holds.md): under the record's vault directory
 * the authoritative copy, the marked and paper-out copies and every evidence bundle; under the envelope its
 * `envelope_documents` (the original upload and the signed PDF before vaulting), the signers' attachments, their
 * drawn signatures and the signers' cached copies. What stays: the certificate PDFs and RFC 4998 evidence records in
 * the vault directory, and every row (hashes, chain, certificate JSON, destruction certificate).
 */
export async function filesToDelete(db: D1Database, bucket: R2Bucket, record: VaultRecordRow): Promise<DestroyedFile[]> {
  const keys = vaultKeys(record.org_id, record.envelope_id, record.id);
  const out: DestroyedFile[] = [];
  for (const key of await listKeys(bucket, keys.dir)) {
    const name = key.slice(keys.dir.length);
    if (name === "authoritative.pdf") out.push({ key, file: "authoritative.pdf", sha256: record.document_hash });
    else if (name === "copy.pdf") out.push({ key, file: "copy.pdf", sha256: record.copy_hash });
    else if (name === "paper-out.pdf") out.push({ key, file: "paper-out.pdf", sha256: null });
    else if (name.startsWith("evidence-") && name.endsWith(".zip")) out.push({ key, file: name, sha256: null });
  }
  for (const d of await listEnvelopeDocumentObjects(db, record.envelope_id)) out.push({ key: d.r2_key, file: `${d.kind}.pdf`, sha256: d.sha256 });
  for (const field of await listSigningFields(db, record.envelope_id)) {
    const a = attachmentOf(field);
    if (a) out.push({ key: a.key, file: `attachment:${field.name}`, sha256: a.sha256 });
  }
  for (const key of await listKeys(bucket, `signatures/${record.org_id}/${record.envelope_id}/`)) out.push({ key, file: "drawn-signature.png", sha256: null });
  for (const key of await listKeys(bucket, `copies/${record.org_id}/${record.envelope_id}/`)) out.push({ key, file: "signer-copy.pdf", sha256: null });
  return out;
}

/** Deletes `keys` (deleting a key already gone is a success: R2's delete is idempotent); throws on the first failure. */
export async function deleteObjects(bucket: R2Bucket, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += DELETE_CHUNK) await bucket.delete(keys.slice(i, i + DELETE_CHUNK));
}


/**
 * Deletes a destroyed record's pending objects and clears the list; on a failure the list stays for the cron's next
 * run. Returns whether everything is gone.
 */
export async function deletePending(db: D1Database, bucket: R2Bucket, vaultId: string, keys: string[]): Promise<boolean> {
  try {
    await deleteObjects(bucket, keys);
  } catch (err) {
    console.warn(JSON.stringify({ message: "destruction: deleting objects failed; the cron retries", vault_id: vaultId, error: String(err) }));
    return false;
  }
  await clearPendingDeletions(db, vaultId, keys);
  return true;
}
