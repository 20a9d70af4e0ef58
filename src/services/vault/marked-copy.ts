import type { RequestContext } from "../../lib/context";
import { sha256Hex, sha256HexOfParts } from "../../lib/crypto";
import { ApiError, notFound } from "../../lib/errors";
import { loadSealKey, markConvertedToPaper, markNonAuthoritativeCopy, type MadeCopy } from "../../pdf";
import { putParts } from "./hashing";
import { vaultKeys } from "./keys";
import { recordRemadeCopy, type VaultRecordRow } from "./repository";
import { COPY_FORMAT, COPY_FORMAT_KEY, isCurrentCopy } from "./copy-format";

export type StoredCopy = { body: ReadableStream; size: number };

type Record = Pick<VaultRecordRow, "id" | "org_id" | "envelope_id" | "authoritative_key" | "document_hash" | "copy_key" | "closed_at">;

/**
 * The vault record's marked non-authoritative copy, at `record.copy_key`, as any non-controller gets it
 * (the copy download, a widget of an organization that is not the controller, a signer's link once
 * the envelope is vaulted). A copy stored before copies were re-serialized (no `copy_format`
 * metadata: the authoritative bytes with an update appended) is made again from the authoritative
 * copy, written over the same key (so whoever reads `copy_key` next finds the new one), and the
 * record's `copy_hash` and `copy_size_bytes` follow. Two first requests at once each make one: either
 * is a valid copy, the last write stays.
 */
export async function openMarkedCopy(ctx: RequestContext, record: Record): Promise<StoredCopy> {
  const stored = await ctx.env.DOCS.get(record.copy_key);
  if (stored && isCurrentCopy(stored)) return { body: stored.body, size: stored.size };
  await stored?.body.cancel();
  const made = await remake(ctx, record, (ac, seal) =>
    markNonAuthoritativeCopy(ac, { vaultId: record.id, documentHash: record.document_hash, envelopeId: record.envelope_id, markedAt: new Date() }, seal),
  );
  const copyHash = await putCopy(ctx, record.copy_key, made.parts, { envelope_id: record.envelope_id, vault_id: record.id, role: "non-authoritative-copy" });
  await recordRemadeCopy(ctx.db, { vaultId: record.id, copyHash, copySizeBytes: made.size });
  return { body: new Blob(made.parts).stream(), size: made.size };
}

/**
 * The paper-out copy (the record's `paper` key), remade the same way when it was stored before copies
 * were re-serialized; its conversion date is the record's `closed_at` (the paper-out's commit).
 */
export async function openPaperCopy(ctx: RequestContext, record: Record): Promise<StoredCopy> {
  const key = vaultKeys(record.org_id, record.envelope_id, record.id).paper;
  const stored = await ctx.env.DOCS.get(key);
  if (!stored) throw notFound("Document");
  if (isCurrentCopy(stored)) return { body: stored.body, size: stored.size };
  await stored.body.cancel();
  const convertedAt = record.closed_at ? new Date(record.closed_at) : stored.uploaded;
  const made = await remake(ctx, record, (ac, seal) =>
    markConvertedToPaper(ac, { vaultId: record.id, documentHash: record.document_hash, envelopeId: record.envelope_id, convertedAt }, seal),
  );
  await putCopy(ctx, key, made.parts, { envelope_id: record.envelope_id, vault_id: record.id, role: "converted-to-paper" });
  return { body: new Blob(made.parts).stream(), size: made.size };
}

/** Writes a copy made the current way (its parts, never joined), saying so in its metadata; answers its SHA-256. */
export async function putCopy(ctx: RequestContext, key: string, parts: Uint8Array[], metadata: { envelope_id: string; vault_id?: string; role: string }): Promise<string> {
  const sha256 = await sha256HexOfParts(parts);
  await putParts(ctx.env.DOCS, key, parts, { httpMetadata: { contentType: "application/pdf" }, customMetadata: { ...metadata, [COPY_FORMAT_KEY]: COPY_FORMAT }, sha256 });
  return sha256;
}

/** A copy of the authoritative copy, made only of bytes that still hash to the recorded value. */
async function remake(ctx: RequestContext, record: Record, make: (ac: Uint8Array, seal: Awaited<ReturnType<typeof loadSealKey>>) => Promise<MadeCopy>): Promise<MadeCopy> {
  const seal = await loadSealKey(ctx.env);
  const object = await ctx.env.DOCS.get(record.authoritative_key);
  if (!object) throw notFound("Document");
  const ac = new Uint8Array(await object.arrayBuffer());
  if ((await sha256Hex(ac)) !== record.document_hash) {
    throw new ApiError(
      409,
      "The vaulted document failed its integrity check: its bytes no longer match the SHA-256 recorded at vaulting, so no copy is made of it",
      undefined,
      "integrity_check_failed",
    );
  }
  return make(ac, seal);
}
