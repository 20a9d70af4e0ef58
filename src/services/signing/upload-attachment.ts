import type { RequestContext } from "../../lib/context";
import { sha256Hex } from "../../lib/crypto";
import { ApiError, conflict, type ErrorCodesByStatus, mergeErrorCodes } from "../../lib/errors";
import type { UploadedFile } from "../../lib/multipart";
import { newShardId } from "../../lib/shards";
import { setFieldValueStatement } from "../documents/repository";
import { assertKbaCleared } from "../kba/gate";
import { assertOtpVerified } from "../otp/gate";
import { assertConsentGiven } from "../signers/consent-gate";
import { signersWhoseTurnItIs } from "../signers/repository";
import { signerData } from "../signers/signer-actor";
import { commitSignerChange } from "./commit-signer-change";
import { loadSigningContext, type SigningContext } from "./repository";
import { ATTACHMENT_FILE_ERRORS, checkAttachment } from "../attachments/sniff";
import { acceptOf, attachmentOf, attachmentValue, publicAttachment, safeFilename, type StoredAttachment } from "../attachments/value";

/**
 * PUT /signing/:slug/attachments/:field_name (docs/decisions/attachments.md): the signer's file for one
 * of their `attachment` fields. The same gates as submit (KBA, SMS passcode, consent, their turn, not
 * signed yet), then the hostile-input gate (./sniff.ts). The file goes to R2 beside the envelope's
 * documents under a fresh key before the commit; the commit sets the field's value (key, SHA-256,
 * size, type, name) and appends `signer.attachment_uploaded` with the hash to the envelope's chain.
 * Uploading again replaces it (the entry names the hash replaced). A refused commit deletes the
 * object again; a crash between the write and the commit leaves an orphan, never a field naming a
 * missing object.
 */
export async function uploadAttachment(ctx: RequestContext, input: { signerId: string; fieldName: string; file: UploadedFile | null }) {
  if (!input.file) throw new ApiError(400, "Send the file as the multipart part named file", { field: "file" });
  const file = input.file;
  const bytes = file.bytes;
  // decided on the state read, then again in the commit's plan: the checks, the hash and the R2 write run once, before it
  const first = await loadSigningContext(ctx, input.signerId);
  const field = await attachableField(ctx, first, input.fieldName);
  const checked = await checkAttachment(bytes, acceptOf(field));
  const sha256 = await sha256Hex(bytes);
  const ext = { "application/pdf": "pdf", "image/jpeg": "jpg", "image/png": "png" }[checked.type];
  const key = `documents/${first.envelope.org_id}/${newShardId("document", ctx.shardId)}-attachment.${ext}`;
  await ctx.env.DOCS.put(key, bytes, { httpMetadata: { contentType: checked.type }, sha256, customMetadata: { envelope_id: first.envelope.id, field: field.name, role: "attachment" } });
  try {
    return await commitSignerChange(
      ctx,
      input.signerId,
      async (sc, at) => {
        const { signer, envelope } = sc;
        const current = await attachableField(ctx, sc, input.fieldName);
        const previous = attachmentOf(current);
        const stored: StoredAttachment = { key, sha256, size: bytes.length, content_type: checked.type, filename: safeFilename(file.filename, checked.type), uploaded_at: at };
        const data = {
          envelope_id: envelope.id,
          ...signerData(signer),
          field: current.name,
          filename: stored.filename,
          content_type: stored.content_type,
          size: stored.size,
          sha256,
          ...(checked.image ? { width: checked.image.width, height: checked.image.height } : {}),
          replaced_sha256: previous?.sha256 ?? null,
        };
        return {
          change: { entries: [{ action: "signer.attachment_uploaded" as const, data }], statements: [setFieldValueStatement(ctx.db, envelope.id, current.name, attachmentValue(stored))] },
          result: { field: current.name, ...publicAttachment(stored) },
        };
      },
      first,
    );
  } catch (err) {
    await ctx.env.DOCS.delete(key).catch(() => {});
    throw err;
  }
}

/** The signer's attachment field named `name`, once the gates of submit hold: KBA, passcode, consent, their turn, not signed. */
async function attachableField(ctx: RequestContext, sc: SigningContext, name: string) {
  const { signer, envelope } = sc;
  await assertKbaCleared(ctx.db, signer.id);
  await assertOtpVerified(ctx.db, signer);
  assertConsentGiven(envelope, signer);
  if (signer.status === "completed") throw conflict("This signer has already signed: the attachments can no longer change", { signer_status: signer.status });
  if (!signersWhoseTurnItIs(sc.signers).some((s) => s.id === signer.id)) throw conflict("It is not this signer's turn yet", { routing_order: signer.routing_order });
  const field = sc.fields.find((f) => f.name === name && f.role === signer.role && f.type === "attachment");
  if (!field) throw new ApiError(404, `No attachment field named ${JSON.stringify(name)} belongs to this signer`, undefined, "attachment_field_not_found");
  return field;
}

export const UPLOAD_ATTACHMENT_ERRORS: ErrorCodesByStatus = mergeErrorCodes(ATTACHMENT_FILE_ERRORS, { 404: ["attachment_field_not_found"] });
