import type { BulkBatchStatus, BulkItemStatus } from "../../db/schema";
import { conflict, notFound } from "../../lib/errors";
import type { ProviderInstance } from "../templates/schema";

export type BatchRow = {
  id: string;
  org_id: string;
  name: string;
  document_source: "template" | "package" | "new";
  source_template_id: string | null;
  source_package_id: string | null;
  kba_required: number;
  provider_instance: ProviderInstance;
  preserve_signing_order: number;
  add_me_as_signer: number;
  auto_vault_enabled: number;
  vault_terms_accepted_at: string | null;
  vault_terms_accepted_by: string | null;
  tag_ids: string;
  master_template_id: string | null;
  master_source: string | null;
  status: BulkBatchStatus;
  total_count: number;
  running_count: number;
  sent_count: number;
  failed_count: number;
  skipped_count: number;
  cancelled_count: number;
  created_by: string;
  error: string | null;
  submitted_at: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

export type ItemRow = {
  id: string;
  batch_id: string;
  org_id: string;
  position: number;
  customer_id: string;
  customer_name: string;
  email: string | null;
  status: BulkItemStatus;
  envelope_key: string;
  envelope_id: string | null;
  attempts: number;
  error: string | null;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
};

/** A batch of the organization that is not deleted; another organization's is not found (404). */
export async function getBatch(db: D1Database, orgId: string, batchId: string): Promise<BatchRow> {
  const row = await db.prepare("SELECT * FROM bulk_batches WHERE id = ? AND org_id = ? AND deleted_at IS NULL").bind(batchId, orgId).first<BatchRow>();
  if (!row) throw notFound("Bulk-send batch");
  return row;
}

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
    status: i.status,
    envelope_id: i.envelope_id,
    error: i.error,
    sent_at: progressTime(i.sent_at),
  };
}
