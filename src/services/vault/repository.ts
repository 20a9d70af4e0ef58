/** A vault record as D1 returns it. */
export type VaultRecordRow = {
  id: string;
  envelope_id: string;
  org_id: string;
  custodian_org_id: string;
  authoritative_key: string;
  document_hash: string;
  size_bytes: number;
  page_count: number;
  copy_key: string;
  copy_hash: string;
  copy_size_bytes: number;
  copy_marked: number;
  source: "signed" | "upload";
  actor_type: string;
  actor_id: string | null;
  on_behalf_of: string | null;
  stored_at: string;
};

export type CertificateRow = {
  id: string;
  envelope_id: string;
  vault_id: string;
  version: number;
  body: string;
  compliant: number;
  issued_at: string;
};

export function findVaultRecord(db: D1Database, envelopeId: string): Promise<VaultRecordRow | null> {
  return db.prepare("SELECT * FROM vault_records WHERE envelope_id = ?").bind(envelopeId).first<VaultRecordRow>();
}

export function findVaultRecordById(db: D1Database, vaultId: string): Promise<VaultRecordRow | null> {
  return db.prepare("SELECT * FROM vault_records WHERE id = ?").bind(vaultId).first<VaultRecordRow>();
}

export async function lastIntegrityMatched(db: D1Database, vaultId: string): Promise<boolean | null> {
  const row = await db
    .prepare("SELECT matched FROM vault_integrity_checks WHERE vault_id = ? ORDER BY checked_at DESC, rowid DESC LIMIT 1")
    .bind(vaultId)
    .first<{ matched: number }>();
  return row ? row.matched === 1 : null;
}

export function latestCertificate(db: D1Database, envelopeId: string): Promise<CertificateRow | null> {
  return db
    .prepare("SELECT id, envelope_id, vault_id, version, body, compliant, issued_at FROM vault_certificates WHERE envelope_id = ? ORDER BY version DESC LIMIT 1")
    .bind(envelopeId)
    .first<CertificateRow>();
}
