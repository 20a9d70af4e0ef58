import { ApiError, type ErrorCodesByStatus, notFound } from "../../lib/errors";
import type { RequestContext } from "../../lib/context";
import { findEnvelopeName } from "../envelopes/repository";
import { openMarkedCopy, openPaperCopy } from "./marked-copy";
import { openEvidenceBundle } from "./evidence-bundle";
import { observeAuthoritative, recordIntegrityCheck } from "./integrity";
import { openCertificatePdf } from "./certificate";
import { findVaultRecordById, latestCertificateFiles } from "./repository";
import { assertAuthoritativeServable, assertNotDestroyed, downloadFilename, verifyVaultUrl, type VaultFile } from "./signed-url";

export type VaultDownload = { body: ReadableStream; size: number; filename: string; contentType: "application/pdf" | "application/zip" };

/**
 * Serves a signed download URL. The authoritative copy is served only while the organization its URL
 * names still controls the record and control is not closed (403 `not_controller`, 409
 * `control_closed`); it is re-hashed first and refused (409) when its
 * bytes no longer match the hash recorded at vaulting; the check is recorded either way (a mismatch
 * becomes a tamper event). The bytes then sent are read with `etagMatches` on the object that was
 * hashed, so an overwrite between the check and the read cannot slip through unchecked.
 */
export async function openVaultDownload(
  ctx: RequestContext,
  input: { vaultId: string; file: VaultFile; exp: string; sig: string; c?: string },
): Promise<VaultDownload> {
  await verifyVaultUrl(ctx.env, input);
  const record = await findVaultRecordById(ctx.db, input.vaultId);
  if (!record) throw notFound("Document");
  assertNotDestroyed(record, input.file);
  const envelope = await findEnvelopeName(ctx.db, record.envelope_id);
  const filename = downloadFilename(envelope ?? { id: record.envelope_id, name: "" }, input.file);

  // copies made before they were re-serialized are made again first (./marked-copy.ts)
  if (input.file === "copy") return { ...(await openMarkedCopy(ctx, record)), filename, contentType: "application/pdf" };
  if (input.file === "certificate") {
    // the current certificate's PDF (the newest version: re-issued when a check's outcome changes),
    // rendered now from its JSON if its version was issued without one (a pool's move)
    const row = await latestCertificateFiles(ctx.db, record.envelope_id);
    if (!row) throw notFound("Certificate");
    const pdf = await openCertificatePdf(ctx.env, row);
    return { body: pdf.body, size: pdf.size, filename, contentType: "application/pdf" };
  }
  if (input.file === "paper") return { ...(await openPaperCopy(ctx, record)), filename, contentType: "application/pdf" };
  if (input.file === "evidence_copy") return { ...(await openEvidenceBundle(ctx, record, "copy")), filename, contentType: "application/zip" };

  // Links follow control (docs/control.md): the organization the link names must control the record now,
  // and control must not be closed (an offer alone changes neither); the controller's evidence bundle
  // carries the authoritative copy, so its link follows control the same way
  assertAuthoritativeServable(record, input.c!);
  if (input.file === "evidence") return { ...(await openEvidenceBundle(ctx, record, "authoritative")), filename, contentType: "application/zip" };

  for (let attempt = 0; attempt < 2; attempt++) {
    const observed = await observeAuthoritative(ctx.env.DOCS, record);
    const { matched } = await recordIntegrityCheck(ctx, { record, source: "download", observed });
    if (!matched) {
      throw new ApiError(
        409,
        "The vaulted document failed its integrity check: its bytes no longer match the SHA-256 recorded at vaulting. The download is refused and a tamper event has been recorded",
        undefined,
        "integrity_check_failed",
      );
    }
    const object = await ctx.env.DOCS.get(record.authoritative_key, { onlyIf: { etagMatches: observed.etag! } });
    if (object && "body" in object) return { body: object.body, size: object.size, filename, contentType: "application/pdf" };
    // The object changed after it was hashed: check the new bytes.
  }
  throw new ApiError(409, "The vaulted document changed while it was being read; retry the download");
}

/** What serving or copying a vaulted file answers when its bytes no longer match the SHA-256 recorded at vaulting. */
export const INTEGRITY_ERRORS: ErrorCodesByStatus = { 409: ["integrity_check_failed"] };
