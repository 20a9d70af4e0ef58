import type { Env } from "../../env";
import type { OrgContext, RequestContext } from "../../lib/context";
import { hmacSha256, timingSafeEqual, toHex } from "../../lib/crypto";
import { ApiError, type ErrorCodesByStatus, notFound } from "../../lib/errors";
import { requireSecret } from "../../lib/secrets";
import { listSigningFields } from "../documents/repository";
import { getEnvelope } from "../envelopes/repository";
import { attachmentOf, type StoredAttachment } from "./value";

/**
 * Download URLs of attachments name the envelope and the field, never the R2 key, and carry `exp` and
 * `sig` = hex HMAC-SHA256 keyed by STORAGE_URL_SECRET over the envelope, the field, the file's SHA-256
 * and `exp`: a link dies when the file is replaced, and any changed byte invalidates it.
 */
const signature = (secret: string, envelopeId: string, field: string, sha256: string, exp: number) =>
  hmacSha256(secret, `attachment-download:v1\n${envelopeId}\n${field}\n${sha256}\n${exp}`).then(toHex);

async function findAttachment(ctx: RequestContext, envelopeId: string, fieldName: string): Promise<StoredAttachment> {
  const field = (await listSigningFields(ctx.db, envelopeId)).find((f) => f.name === fieldName && f.type === "attachment");
  if (!field) throw new ApiError(404, `No attachment field named ${JSON.stringify(fieldName)} on this envelope`, undefined, "attachment_field_not_found");
  const a = attachmentOf(field);
  if (!a) throw new ApiError(404, `Nothing was uploaded to ${fieldName} yet`, { field: fieldName }, "attachment_not_uploaded");
  return a;
}

/** GET /partner/envelopes/:id/attachments/:field_name/signed-url: a signed URL of the file the signer uploaded (404 until then). */
export async function createAttachmentUrl(ctx: OrgContext, input: { envelopeId: string; fieldName: string; expiresIn: number }) {
  const envelope = await getEnvelope(ctx.db, ctx.orgId, input.envelopeId);
  const a = await findAttachment(ctx, envelope.id, input.fieldName);
  const secret = requireSecret(ctx.env, "STORAGE_URL_SECRET");
  const exp = Math.floor(Date.now() / 1000) + input.expiresIn;
  const sig = await signature(secret, envelope.id, input.fieldName, a.sha256, exp);
  const host = ctx.env.STORAGE_HOST.replace(/\/+$/, "");
  return {
    signed_url: `${host}/attachments/${envelope.id}/${encodeURIComponent(input.fieldName)}?exp=${exp}&sig=${sig}`,
    filename: a.filename,
    content_type: a.content_type,
    size: a.size,
    sha256: a.sha256,
    expires_in: input.expiresIn,
    expires_at: new Date(exp * 1000).toISOString(),
  };
}

/** GET /storage/attachments/:envelope_id/:field_name: the file, once its link's signature and expiry hold (403 otherwise). */
export async function openAttachmentDownload(ctx: RequestContext, input: { envelopeId: string; fieldName: string; exp: string; sig: string }) {
  const env: Env = ctx.env;
  const secret = requireSecret(env, "STORAGE_URL_SECRET");
  const exp = /^\d{1,12}$/.test(input.exp) ? Number(input.exp) : NaN;
  // the file named first (its hash is signed): an unknown one is the same 403 as a forged link
  const a = await findAttachment(ctx, input.envelopeId, input.fieldName).catch(() => null);
  const expected = a && !Number.isNaN(exp) ? await signature(secret, input.envelopeId, input.fieldName, a.sha256, exp) : null;
  if (!a || !expected || !timingSafeEqual(expected, input.sig.toLowerCase())) throw new ApiError(403, "Invalid download link: the signature does not match (or the file was replaced since)");
  if (exp * 1000 <= Date.now()) throw new ApiError(403, "This download link has expired; request a new one");
  const object = await env.DOCS.get(a.key);
  if (!object) throw notFound("Attachment");
  return { body: object.body, size: object.size, attachment: a };
}

export const ATTACHMENT_URL_ERRORS: ErrorCodesByStatus = { 404: ["attachment_field_not_found", "attachment_not_uploaded"] };
