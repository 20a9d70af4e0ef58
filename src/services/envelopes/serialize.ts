import { ccOf, metadataOf, securedPartyOf, type EnvelopeRow } from "./repository";

/** Metadata keys a partner may see (spec part 2); anything else stored in metadata stays internal. */
const PARTNER_SAFE_METADATA = ["document_source", "source_template_id", "bulk_send"] as const;

export function partnerMetadata(row: EnvelopeRow): Record<string, unknown> {
  const all = metadataOf(row);
  const safe: Record<string, unknown> = {};
  for (const key of PARTNER_SAFE_METADATA) if (all[key] !== undefined) safe[key] = all[key];
  return safe;
}

export function envelopeListItem(row: EnvelopeRow) {
  return {
    envelope_id: row.id,
    envelope_name: row.name,
    status: row.status,
    customer_id: row.customer_id,
    external_id: row.external_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** `vault_id` comes with a LoadedEnvelope (read with the envelope); a row read otherwise is one not vaulted. */
export function envelopeDetail(row: EnvelopeRow & { vault_id?: string | null; cc_json?: string | null }) {
  return {
    ...envelopeListItem(row),
    vault_id: row.vault_id ?? null,
    template_id: row.template_id,
    vaulted: row.vaulted_at !== null,
    compliant: row.certificate_issued_at !== null,
    signed_at: row.signed_at,
    expires_at: row.expires_at,
    kba_required: row.kba_required === 1,
    consumer_consent: row.consumer_consent === 1,
    locale: row.locale,
    provider_instance: row.provider_instance,
    secured_party: securedPartyOf(row),
    metadata: partnerMetadata(row),
    cc: ccOf(row),
  };
}

export function envelopeStatus(row: Pick<EnvelopeRow, "id" | "status" | "vaulted_at" | "certificate_issued_at" | "signed_at" | "updated_at">) {
  return {
    envelope_id: row.id,
    status: row.status,
    vaulted: row.vaulted_at !== null,
    compliant: row.certificate_issued_at !== null,
    signed_at: row.signed_at,
    updated_at: row.updated_at,
  };
}

/** Common data of every envelope event: receivers route by customer_id or their own external_id. */
export function envelopeEventData(row: EnvelopeRow) {
  const { envelope_id, envelope_name, status, customer_id, external_id } = envelopeListItem(row);
  return { envelope_id, envelope_name, status, customer_id, external_id };
}
