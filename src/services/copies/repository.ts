/** A vault record's copy was made again (re-serialized): its hash and size follow the stored object. */
export async function recordRemadeCopy(db: D1Database, input: { vaultId: string; copyHash: string; copySizeBytes: number }): Promise<void> {
  await db.prepare("UPDATE vault_records SET copy_hash = ?, copy_size_bytes = ? WHERE id = ?").bind(input.copyHash, input.copySizeBytes, input.vaultId).run();
}
