import { maskPhone } from "../otp/mask-phone";
import { conflict } from "../../lib/errors";
import type { BatchRow, ItemRow } from "./repository";

/** A batch's rules and its answers' shapes (its rows are read in ./repository). */

/** Editable states (spec 3): PATCH, items, vault-consent and delete are 409 afterwards. */
export function assertEditable(batch: BatchRow, what: string): void {
  if (batch.status !== "draft" && batch.status !== "ready") {
    throw conflict(`Cannot ${what} a batch with status ${batch.status}: only draft or ready batches can be changed`, { status: batch.status });
  }
}

/** Progress times omit milliseconds (spec part 2). */
export const progressTime = (iso: string | null) => (iso === null ? null : iso.replace(/\.\d{3}Z$/, "Z"));

export function countsOf(b: BatchRow) {
  const settled = b.running_count + b.sent_count + b.failed_count + b.skipped_count + b.cancelled_count;
  return {
    pending: Math.max(0, b.total_count - settled),
    running: b.running_count,
    sent: b.sent_count,
    failed: b.failed_count,
    skipped: b.skipped_count,
    cancelled: b.cancelled_count,
  };
}

export function batchDetail(b: BatchRow) {
  return {
    batch_id: b.id,
    name: b.name,
    document_source: b.document_source,
    source_template_id: b.source_template_id,
    source_package_id: b.source_package_id,
    kba_required: b.kba_required === 1,
    preserve_signing_order: b.preserve_signing_order === 1,
    add_me_as_signer: b.add_me_as_signer === 1,
    auto_vault_enabled: b.auto_vault_enabled === 1,
    vault_in_terms_accepted_at: progressTime(b.vault_terms_accepted_at),
    vault_in_terms_accepted_by: b.vault_terms_accepted_by,
    tag_ids: JSON.parse(b.tag_ids) as string[],
    master_template_id: b.master_template_id,
    provider_instance: b.provider_instance,
    status: b.status,
    total_count: b.total_count,
    sent_count: b.sent_count,
    failed_count: b.failed_count,
    skipped_count: b.skipped_count,
    error: b.error,
    created_at: progressTime(b.created_at)!,
    updated_at: progressTime(b.updated_at)!,
    submitted_at: progressTime(b.submitted_at),
    finished_at: progressTime(b.finished_at),
  };
}

export function itemDetail(i: ItemRow) {
  return {
    item_id: i.id,
    customer_id: i.customer_id,
    customer_name: i.customer_name,
    email: i.email,
    locale: i.locale,
    // an item's phone is only ever the number an sms_otp signer's code is texted to
    auth: i.phone ? ("sms_otp" as const) : null,
    phone: i.phone ? maskPhone(i.phone) : null,
    status: i.status,
    envelope_id: i.envelope_id,
    error: i.error,
    sent_at: progressTime(i.sent_at),
  };
}
