import { sha256Hex } from "../../lib/crypto";
import type { RequestContext } from "../../lib/context";
import { ApiError, conflict, notFound } from "../../lib/errors";
import { loadSealKey, markNonAuthoritativeCopy } from "../../pdf";
import { findSignedDocument } from "../documents/repository";
import { findCcRecipient, findEnvelopeForCopy } from "../envelopes/repository";
import { getSigner } from "../signers/repository";
import { findVaultRecord } from "../vault/repository";
import { assertNotDestroyed, downloadFilename } from "../vault/signed-url";
import { isCurrentCopy } from "../vault/copy-format";
import { copyAvailable, verifyCopyUrl } from "./copy-url";
import { openMarkedCopy, putCopy } from "../vault/marked-copy";

export type CopyDownload = { body: ReadableStream; size: number; filename: string };

/** What the copy's footer names as its vault record before there is one. */
export const NOT_VAULTED = "(not vaulted yet)";

/** Where the copy of a completed, not yet vaulted envelope is kept once made: one per signed document (and copy format). */
const copyKey = (orgId: string, envelopeId: string, signedSha256: string) => `copies/${orgId}/${envelopeId}/${signedSha256}.pdf`;

/**
 * GET /storage/copies/:envelope_id (docs/decisions/signers-copy.md): the signer's (or cc recipient's)
 * copy of a completed envelope, for 30 days after completion. The link is checked first (403 forged,
 * 410 expired: ./copy-url.ts), then that it names a recipient of this envelope (404 otherwise).
 *
 * The copy is never the authoritative copy's bytes (UCC §9-105(b)(5)), nor those bytes with something
 * appended: a vaulted envelope serves the vault's own marked copy (made at vault-in, naming the vault
 * record; remade first if it predates re-serialized copies: ../vault/marked-copy.ts), under any control
 * status; a completed one not vaulted yet serves a re-serialized, stamped and sealed copy of the
 * signed PDF naming the signed document's SHA-256 (the hash the vault record will carry), made at the
 * first download and kept in R2 for the next ones, so the last signer's submit never pays for it.
 */
export async function openSignerCopy(ctx: RequestContext, input: { envelopeId: string; r: string; exp: string; sig: string }): Promise<CopyDownload> {
  await verifyCopyUrl(ctx.env, input);
  const db = ctx.db;
  const envelope = await findEnvelopeForCopy(db, input.envelopeId);
  if (!envelope) throw notFound("Document");
  const recipient = input.r.startsWith("ccr_") ? await findCcRecipient(db, envelope.id, input.r) : await getSigner(db, input.r);
  if (!recipient || ("envelope_id" in recipient && recipient.envelope_id !== envelope.id)) throw notFound("Document");
  if ((envelope.status !== "completed" && envelope.status !== "vaulted") || !copyAvailable(envelope.signed_at)) {
    throw new ApiError(410, `This copy link no longer works: the envelope is ${envelope.status}`, { status: envelope.status }, "copy_link_expired");
  }
  const filename = downloadFilename(envelope, "copy");

  if (envelope.status === "vaulted") {
    const record = await findVaultRecord(db, envelope.id);
    if (!record) throw notFound("Document");
    // a record destroyed after its retention period has no copy left: said plainly, as the vault's own downloads say it
    assertNotDestroyed(record, "copy");
    return { ...(await openMarkedCopy(ctx, record)), filename };
  }

  const signed = await findSignedDocument(db, envelope.id);
  if (!signed) throw notFound("Document");
  const key = copyKey(envelope.org_id, envelope.id, signed.sha256);
  const cached = await ctx.env.DOCS.get(key);
  if (cached && isCurrentCopy(cached)) return { body: cached.body, size: cached.size, filename };
  await cached?.body.cancel();

  const object = await ctx.env.DOCS.get(signed.r2_key);
  if (!object) throw notFound("Document");
  const bytes = new Uint8Array(await object.arrayBuffer());
  // a copy of altered bytes would vouch for them: refused, as vault-in refuses them
  if ((await sha256Hex(bytes)) !== signed.sha256) throw conflict("The signed document no longer matches the SHA-256 recorded when it was signed; no copy is made of it");
  const copy = await markNonAuthoritativeCopy(bytes, { vaultId: NOT_VAULTED, documentHash: signed.sha256, envelopeId: envelope.id, markedAt: new Date() }, await loadSealKey(ctx.env));
  // two first downloads at once each write a copy: either is a valid copy, the last write stays
  await putCopy(ctx, key, copy.parts, { envelope_id: envelope.id, role: "signer-copy" });
  return { body: new Blob(copy.parts).stream(), size: copy.size, filename };
}
