import type { Area, CertificateInput, Stamp } from "../../pdf";

/** What the provider draws on a document: the PDF room (src/pdf) owns these shapes, the provider speaks them. */
export type { CertificateInput, CertificateSigner, Stamp, StampValue } from "../../pdf";

/** The provider's two instances (docs/decisions/signer-api.md): `default` for ordinary documents, `cloud` for KBA ones. */
export const PROVIDER_INSTANCES = ["default", "cloud"] as const;
export type ProviderInstance = (typeof PROVIDER_INSTANCES)[number];

/**
 * The spec lists signature, initials, text, date and checkbox for API fields and adds number, select
 * and radio for embedded tags; both accept the union, so a field means the same whichever way it was
 * placed. `attachment` (docs/decisions/attachments.md) is a file the signer uploads (a PDF or a photo);
 * its accepted MIME types travel as its `options`.
 */
export const FIELD_TYPES = ["signature", "initials", "text", "date", "checkbox", "number", "select", "radio", "attachment"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const PLACEMENT_MODES = ["absolute", "anchor", "tag"] as const;
export type PlacementMode = (typeof PLACEMENT_MODES)[number];

/** A template field once placed: what the provider stores for its counterpart of the template. */
export type ResolvedField = {
  name: string;
  type: FieldType;
  role: string;
  required: boolean;
  readonly: boolean;
  default_value: string | null;
  /** select and radio: the choices; attachment: the accepted MIME types (null: all); null for other types */
  options: string[] | null;
  placement_mode: PlacementMode;
  areas: Area[];
  anchor_match?: Area;
};

/**
 * The signing provider (docs/decisions/signer-api.md): the party that holds templates and, later, runs submissions.
 * `default` serves ordinary documents and `cloud` KBA documents. Only the built-in provider exists;
 * an adapter for an external provider implements the same interface. This is the part templates
 * need; the signing capability extends it with submissions.
 */
/**
 * `templateId` names our template a counterpart belongs to. The built-in provider keeps the
 * counterparts of the organization's templates in the global database and those of a builder working
 * copy (a shard-tagged template id) on that copy's shard (docs/decisions/shards.md 1).
 */
export interface SigningProvider {
  /** Creates the provider's counterpart of a template and returns its integer id. */
  createTemplate(input: {
    instance: ProviderInstance;
    orgId: string;
    templateId: string;
    name: string;
    documentKey: string | null;
    pageCount: number | null;
  }): Promise<{ providerTemplateId: number }>;

  /** Gives a template created without a document its PDF (stored in R2 under `documentKey`). */
  setTemplateDocument(input: { instance: ProviderInstance; providerTemplateId: number; templateId: string; documentKey: string; pageCount: number }): Promise<void>;

  /** Replaces the counterpart's fields with `fields` (the template's whole list). */
  setTemplateFields(input: { instance: ProviderInstance; providerTemplateId: number; templateId: string; fields: ResolvedField[] }): Promise<void>;

  /** Copies a template, document and fields, into another instance (a KBA package's members live in `cloud`). */
  copyTemplate(input: { from: ProviderInstance; providerTemplateId: number; to: ProviderInstance; templateId?: string }): Promise<{ providerTemplateId: number }>;

  /**
   * The completed document of a submission: every value stamped at its field's areas, then the
   * signing certificate appended. `stampedSha256` is the hash of the stamped pages alone, which the
   * certificate states (it cannot contain the hash of the file it is part of). The file is returned
   * as its parts, `original` first and then the appended incremental updates, never joined.
   */
  renderSignedDocument(input: {
    original: Uint8Array;
    stamps: Stamp[];
    certificate: Omit<CertificateInput, "stampedSha256">;
  }): Promise<{ parts: Uint8Array[]; pageCount: number; stampedSha256: string }>;
}

/**
 * What the provider did wrong, mapped to the spec's statuses by the callers: `rejected` and
 * `unavailable` are 502 (the provider refused a write or could not be read), `not_configured` 503.
 */
export class SigningProviderError extends Error {
  constructor(
    readonly kind: "rejected" | "unavailable" | "not_configured",
    message: string,
  ) {
    super(message);
  }
}
