import { sha256Hex } from "../../lib/crypto";
import { conflict, unprocessable } from "../../lib/errors";
import type { UploadedFile } from "../../lib/multipart";
import { nowIso } from "../../lib/time";
import { toApiIssues } from "../../lib/validation";
import type { OrgContext } from "../../lib/context";
import { findSignedDocumentHash } from "../documents/repository";
import { getEnvelope, type LoadedEnvelope } from "../envelopes/repository";
import { assertTransition } from "../envelopes/state-machine";
import { assertNoUnpaidPayment } from "../payments/payment-gate";
import { findVaultRecord } from "./repository";
import { VaultInUploadFields } from "./schema";
import { vaultDocument } from "./vault-document";
import { assertVaultEndpoint } from "./wrong-endpoint";

/** Clocks disagree a little; a signing time further ahead than this is refused. */
const FUTURE_SKEW_MS = 5 * 60_000;

/**
 * Paper path: a document signed outside the service is uploaded and vaulted in one step. From
 * `pending` or `uploaded` the envelope is recorded as signed (`completed`, with `signed_at`) and
 * vaulted in the same batch; from `completed` it is vaulted. Already vaulted with the same document is
 * 200 (idempotent); with a different one 409, since the authoritative copy cannot be replaced.
 */
export async function vaultInUpload(
  ctx: OrgContext,
  input: { envelopeId: string; file: UploadedFile | null; fields: Record<string, string> },
): Promise<LoadedEnvelope> {
  const db = ctx.db;
  const envelope = await getEnvelope(db, ctx.orgId, input.envelopeId);
  assertVaultEndpoint(envelope, "vault-in-upload");

  const fields = VaultInUploadFields.safeParse(input.fields);
  if (!fields.success) throw unprocessable("Validation failed", toApiIssues(fields.error, input.fields));
  if (!input.file) {
    throw unprocessable("Validation failed", [
      { code: "invalid_type", expected: "file", received: "undefined", path: ["file"], message: "Attach the signed PDF as the multipart file part `file`" },
    ]);
  }
  const { signed_at } = fields.data;
  const signedAt = signed_at ? new Date(signed_at).toISOString() : nowIso();
  if (Date.parse(signedAt) > Date.now() + FUTURE_SKEW_MS) {
    throw unprocessable("Validation failed", [
      { code: "too_big", expected: "a time not in the future", received: signed_at ?? "", path: ["signed_at"], message: "signed_at is in the future" },
    ]);
  }
  const bytes = input.file.bytes;
  const hash = await sha256Hex(bytes);

  if (envelope.status === "vaulted") {
    const record = await findVaultRecord(db, envelope.id);
    if (record && record.document_hash !== hash) {
      throw conflict("This envelope is already vaulted with a different document; the authoritative copy cannot be replaced");
    }
    return envelope;
  }
  assertTransition(envelope.status, envelope.status === "completed" ? "vault" : "record_paper_signed");
  await assertNoUnpaidPayment(db, envelope);

  const recorded = await findSignedDocumentHash(db, envelope.id);
  if (recorded && recorded.sha256 !== hash) {
    throw conflict("A different signed document is already recorded for this envelope; upload that document to vault it");
  }
  return vaultDocument(ctx, { envelope, bytes, hash, source: "upload", paper: { signedAt } });
}
