import { ApiError, notFound } from "../../lib/errors";
import { getEnvelope, type LoadedEnvelope } from "../envelopes/repository";
import { listSigners, type SignerRow } from "../signers/repository";
import type { Area } from "../../pdf";

export type EnvelopeFieldRow = {
  seq: number;
  name: string;
  type: string;
  role: string;
  required: number;
  readonly: number;
  default_value: string | null;
  /** select and radio: JSON array of the choices; null for other types (and fields placed before options existed) */
  options: string | null;
  areas: string;
  value: string | null;
};

export type SigningContext = { signer: SignerRow; envelope: LoadedEnvelope; signers: SignerRow[]; fields: EnvelopeFieldRow[] };

/** Statuses in which a slug still opens the envelope: once it is closed the link stops working. */
export const OPEN_STATUSES = ["sent", "viewed"] as const;

/**
 * Everything the signer API needs, for the signer its credential named (services/signers/
 * resolve-credential.ts). An unknown signer is 404; the link of a closed envelope (completed,
 * declined, voided, expired, vaulted) is 410 naming the status, as DocuSign's expired email links tell
 * the signer why they stopped working.
 */
export async function loadSigningContext(db: D1Database, signerId: string, opts: { allowClosed?: boolean } = {}): Promise<SigningContext> {
  const signer = await db.prepare("SELECT * FROM signers WHERE id = ?").bind(signerId).first<SignerRow>();
  if (!signer) throw notFound("Signing link");
  const envelope = await getEnvelope(db, signer.org_id, signer.envelope_id);
  if (!opts.allowClosed && !(OPEN_STATUSES as readonly string[]).includes(envelope.status)) {
    throw new ApiError(410, `This signing link no longer works: the envelope is ${envelope.status}`, { status: envelope.status });
  }
  const [signers, fields] = await Promise.all([
    listSigners(db, envelope.id),
    db.prepare("SELECT seq, name, type, role, required, readonly, default_value, options, areas, value FROM envelope_fields WHERE envelope_id = ? ORDER BY seq").bind(envelope.id).all<EnvelopeFieldRow>(),
  ]);
  return { signer, envelope, signers, fields: fields.results };
}

export const areasOf = (field: EnvelopeFieldRow): Area[] => JSON.parse(field.areas) as Area[];

export const optionsOf = (field: Pick<EnvelopeFieldRow, "options">): string[] | null => (field.options ? (JSON.parse(field.options) as string[]) : null);
