import { ApiError, notFound } from "../../lib/errors";
import type { ServiceContext } from "../context";
import { observeAuthoritative, recordIntegrityCheck } from "./integrity";
import { findVaultRecordById } from "./repository";
import { downloadFilename, verifyVaultUrl, type VaultFile } from "./signed-url";

export type VaultDownload = { body: ReadableStream; size: number; filename: string };

/**
 * Serves a signed download URL. The authoritative copy is re-hashed first and refused (409) when its
 * bytes no longer match the hash recorded at vaulting; the check is recorded either way (a mismatch
 * becomes a tamper event). The bytes then sent are read with `etagMatches` on the object that was
 * hashed, so an overwrite between the check and the read cannot slip through unchecked.
 */
export async function openVaultDownload(
  ctx: ServiceContext,
  input: { vaultId: string; file: VaultFile; exp: string; sig: string },
): Promise<VaultDownload> {
  await verifyVaultUrl(ctx.env, input);
  const record = await findVaultRecordById(ctx.env.DB, input.vaultId);
  if (!record) throw notFound("Document");
  const envelope = await ctx.env.DB.prepare("SELECT id, name FROM envelopes WHERE id = ?")
    .bind(record.envelope_id)
    .first<{ id: string; name: string }>();
  const filename = downloadFilename(envelope ?? { id: record.envelope_id, name: "" }, input.file);

  if (input.file === "copy") {
    const copy = await ctx.env.DOCS.get(record.copy_key);
    if (!copy) throw notFound("Document");
    return { body: copy.body, size: copy.size, filename };
  }

  for (let attempt = 0; attempt < 2; attempt++) {
    const observed = await observeAuthoritative(ctx.env.DOCS, record);
    const { matched } = await recordIntegrityCheck(ctx, record, "download", observed);
    if (!matched) {
      throw new ApiError(
        409,
        "The vaulted document failed its integrity check: its bytes no longer match the SHA-256 recorded at vaulting. The download is refused and a tamper event has been recorded",
        undefined,
        "integrity_check_failed",
      );
    }
    const object = await ctx.env.DOCS.get(record.authoritative_key, { onlyIf: { etagMatches: observed.etag! } });
    if (object && "body" in object) return { body: object.body, size: object.size, filename };
    // The object changed after it was hashed: check the new bytes.
  }
  throw new ApiError(409, "The vaulted document changed while it was being read; retry the download");
}
