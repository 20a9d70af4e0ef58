import { unprocessable } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import type { Actor } from "../audit/actor";
import { auditInsert, GENESIS_HASH } from "../audit/chain";
import type { ServiceContext } from "../context";
import { getEnvelope, type LoadedEnvelope } from "./repository";
import type { CreateEnvelopeInput } from "./schema";

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * Creates a `pending` envelope for the customer with that email, provisioning the customer on the
 * fly. Customer, envelope, first audit entry and `envelope.created` commit in one batch; the customer
 * insert is idempotent on (org, email), so two concurrent creates for a new address share one customer.
 */
export async function createEnvelope(
  ctx: ServiceContext,
  input: { orgId: string; actor: Actor; body: CreateEnvelopeInput },
): Promise<LoadedEnvelope> {
  const { orgId, actor, body } = input;
  const db = ctx.env.DB;
  if (body.template_id !== undefined) {
    // Templates arrive with the documents capability; until then every template id is unknown.
    throw unprocessable("Unknown template_id", [
      { code: "invalid_value", expected: "a template of this organization", received: body.template_id, path: ["template_id"], message: "Template not found" },
    ]);
  }
  const at = nowIso();
  const envelopeId = newId("envelope");
  const email = normalizeEmail(body.customer_email);
  const documentSource = body.document_source ?? "new";
  const metadata = { document_source: documentSource };

  const insertCustomer = db
    .prepare(
      `INSERT INTO customers (id, org_id, name, email, email_normalized, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (org_id, email_normalized) DO NOTHING`,
    )
    .bind(newId("customer"), orgId, body.customer_name, body.customer_email.trim(), email, at, at);
  const insertEnvelope = db
    .prepare(
      `INSERT INTO envelopes (id, org_id, customer_id, name, status, document_source, external_id, template_id, metadata,
         prefilled_data, secured_party, expires_in_days, created_by_key_id, audit_seq, created_at, updated_at)
       VALUES (?, ?, (SELECT id FROM customers WHERE org_id = ? AND email_normalized = ?), ?, 'pending', ?, ?, NULL, ?, ?, ?, ?, ?, 1, ?, ?)`,
    )
    .bind(
      envelopeId,
      orgId,
      orgId,
      email,
      body.envelope_name,
      documentSource,
      body.external_id ?? null,
      JSON.stringify(metadata),
      body.prefilled_data ? JSON.stringify(body.prefilled_data) : null,
      body.secured_party ? JSON.stringify(body.secured_party) : null,
      body.expires_in_days ?? 30,
      actor.type === "api_key" ? actor.id : null,
      at,
      at,
    );
  const audit = await auditInsert(db, {
    orgId,
    chainId: envelopeId,
    head: { seq: 0, hash: GENESIS_HASH },
    action: "envelope.created",
    actor,
    data: {
      envelope_name: body.envelope_name,
      customer_email: email,
      document_source: documentSource,
      external_id: body.external_id ?? null,
      secured_party: body.secured_party ?? null,
    },
    at,
  });
  // The event's customer_id is only known once the customer insert has resolved, so its data is
  // assembled in SQL from the envelope row written by the same batch.
  const eventId = newId("event");
  const insertEvent = db
    .prepare(
      `INSERT INTO events (id, org_id, envelope_id, type, data, created_at)
       SELECT ?, e.org_id, e.id, 'envelope.created',
         json_object('envelope_id', e.id, 'envelope_name', e.name, 'status', e.status,
                     'customer_id', e.customer_id, 'external_id', e.external_id), ?
       FROM envelopes e WHERE e.id = ?`,
    )
    .bind(eventId, at, envelopeId);
  await db.batch([insertCustomer, insertEnvelope, audit.statement, insertEvent]);
  ctx.publish(eventId);
  const envelope = await getEnvelope(db, orgId, envelopeId);
  return envelope;
}
