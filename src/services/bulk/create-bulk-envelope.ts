import type { OrgContext } from "../../lib/context";
import { newShardId, shardOf } from "../../lib/shards";
import { nowIso } from "../../lib/time";
import { auditInsert, GENESIS_HASH } from "../audit/chain";
import { copyTemplateFieldRows, insertOriginalDocument } from "../documents/repository";
import { bulkEnvelopeInsert, type EnvelopeConsent } from "../envelopes/repository";
import { envelopeCreatedEventInsert } from "../events/repository";
import type { FieldRow, TemplateRow } from "../templates/repository";
import type { ResolvedField } from "../templates/schema";
import { esignEnvelopeUsageInsert } from "../usage/record-usage";
import { bulkVaultConsentInsert } from "../vault/repository";
import { itemEnvelopeSet, type BatchRow, type ItemRow } from "./repository";

export type ClientData = { name: string; email: string; primary_contact_name: string | null };

/** Field types a client's data can fill: plain text (never a signature, a choice or a checkbox). */
const PREFILLABLE = new Set(["text", "date"]);

/**
 * Matching fields prefilled from client data, by field name (spec 4.8): `customer_name`/`client_name`
 * the client's name, `customer_email`/`client_email`/`email` its email, `primary_contact_name`/
 * `contact_name` the contact (falling back to the client's name).
 */
export function clientPrefill(fields: ResolvedField[], client: ClientData): Record<string, string> {
  const contact = client.primary_contact_name?.trim() || client.name;
  const data: Record<string, string> = {
    customer_name: client.name,
    client_name: client.name,
    customer_email: client.email,
    client_email: client.email,
    email: client.email,
    primary_contact_name: contact,
    contact_name: contact,
  };
  const values: Record<string, string> = {};
  for (const f of fields) if (PREFILLABLE.has(f.type) && data[f.name] !== undefined) values[f.name] = data[f.name]!;
  return values;
}

/**
 * The envelope of one batch item, created `preparing` under the client in one D1 batch: the envelope
 * under the id the item reserved (`envelope_key`: a replayed create fails whole on the primary key,
 * never a second envelope), the master template's document and fields (prefilled), the auto-vault
 * stamp, its `envelope.created` audit entry (recording the batch) and event, its e-sign usage line
 * (once per envelope, by unique key), and the item's `envelope_id`, all or nothing.
 */
export async function createBulkEnvelope(ctx: OrgContext, input: BulkEnvelopeInput) {
  const { statements, eventId } = await bulkEnvelopeStatements(ctx, input);
  await ctx.db.batch(statements);
  ctx.publish(eventId);
}

/** `fieldRows`: the master's field rows as read (it may be global while the envelope is on the batch's shard). */
/** `consent`: the organization's E-SIGN consent for its creates (compose/consent-at-create.ts), read once per chunk from global. */
export type BulkEnvelopeInput = {
  batch: BatchRow; item: Pick<ItemRow, "id" | "customer_id" | "envelope_key">; master: TemplateRow; fields: ResolvedField[]; fieldRows: FieldRow[]; consent: EnvelopeConsent; client: ClientData;
};

/**
 * The statements of `createBulkEnvelope`, not yet committed, so that a chunk can create many clients'
 * envelopes in one D1 batch (one transaction: each envelope still all or nothing, and a replay of any
 * of them fails the whole batch on its primary key). Publish `eventId` once they are committed.
 */
export async function bulkEnvelopeStatements(ctx: OrgContext, input: BulkEnvelopeInput): Promise<{ statements: D1PreparedStatement[]; eventId: string }> {
  const { db, orgId } = ctx;
  const { batch, item, master, client } = input;
  const envelopeId = item.envelope_key;
  // the envelope's shard (the batch's: its key was reserved there), where every row below is written
  const shard = shardOf(envelopeId);
  const at = nowIso();
  const tags = JSON.parse(batch.tag_ids) as string[];
  const metadata = {
    document_source: batch.document_source,
    ...(batch.source_template_id ? { source_template_id: batch.source_template_id } : {}),
    bulk_send: { batch_id: batch.id, item_id: item.id },
    tag_ids: tags,
  };
  const statements: D1PreparedStatement[] = [
    bulkEnvelopeInsert(db, {
      id: envelopeId,
      orgId,
      customerId: item.customer_id,
      name: batch.name,
      documentSource: batch.document_source,
      templateId: master.id,
      metadata: JSON.stringify(metadata),
      kbaRequired: master.kba_required,
      providerInstance: master.provider_instance,
      consent: input.consent,
      at,
    }),
    insertOriginalDocument(db, { id: newShardId("document", shard), envelopeId, orgId, key: master.document_key!, sha256: master.document_sha256!, sizeBytes: master.document_size_bytes!, pageCount: master.page_count, pageSizes: master.page_sizes, at }),
    ...copyTemplateFieldRows(db, { envelopeId, fields: input.fieldRows, values: clientPrefill(input.fields, client), at }),
  ];
  if (batch.auto_vault_enabled === 1 && batch.vault_terms_accepted_at) {
    statements.push(bulkVaultConsentInsert(db, { envelopeId, orgId, termsAcceptedAt: batch.vault_terms_accepted_at, termsAcceptedBy: batch.vault_terms_accepted_by, at }));
  }
  const audit = await auditInsert(db, {
    orgId,
    chainId: envelopeId,
    head: { seq: 0, hash: GENESIS_HASH },
    action: "envelope.created",
    actor: ctx.actor,
    data: { envelope_name: batch.name, customer_email: client.email.toLowerCase(), document_source: batch.document_source, template_id: master.id, bulk_send: { batch_id: batch.id, item_id: item.id } },
    at,
  });
  const eventId = newShardId("event", shard);
  statements.push(
    audit.statement,
    // the event's data is assembled in SQL from the envelope row written by the same batch
    envelopeCreatedEventInsert(db, { id: eventId, envelopeId, at }),
    esignEnvelopeUsageInsert(db, { orgId, envelopeId, description: `Bulk send ${batch.id}: envelope for ${client.name}`, at }),
    itemEnvelopeSet(db, item.id, envelopeId, at),
  );
  return { statements, eventId };
}
