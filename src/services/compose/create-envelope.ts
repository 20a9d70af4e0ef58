import { newShardId } from "../../lib/shards";
import { nowIso } from "../../lib/time";
import { auditInsert, GENESIS_HASH } from "../audit/chain";
import type { OrgContext } from "../../lib/context";
import { templateSourceFor } from "./envelope-source";
import { planPaymentRequest } from "../payments/request-payment";
import { notFound } from "../../lib/errors";
import { hasLiveEndpoint } from "../webhooks/repository";
import { customerOnShard } from "../customers/customer-on-shard";
import { envelopeCreatedEventInsertReturning } from "../events/repository";
import { ccRecipientsInsert, createdEnvelopeInsert, envelopeReminderSettingsUpdate, getEnvelope, loadedEnvelopeOf, selectLoadedEnvelope, type LoadedEnvelope, type LoadedEnvelopeRow } from "../envelopes/repository";
import { esignEnvelopeUsageInsert } from "../usage/record-usage";
import { orgShardSet } from "../shards/repository";
import { consentAtCreate } from "./consent-at-create";
import type { CreateEnvelopeInput } from "./schema";
import { earlierKeyedCreate, keyedCreateMark } from "../idempotency/keyed-create";

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * Creates a `pending` envelope for the customer with that email, provisioning the customer on the
 * fly. Customer, envelope, first audit entry, `envelope.created` and the envelope's one e-sign usage
 * line commit in one batch; the customer insert is idempotent on (org, email), so two concurrent
 * creates for a new address share one customer.
 *
 * The envelope goes on `ctx.db`, the organization's current shard (docs/decisions/shards.md 3). What
 * the create needs from the global database (the organization's shard set, its E-SIGN disclosure,
 * whether it has a live webhook endpoint, the template) is read first, concurrently, and enters the
 * shard's batch as values: no statement touches both.
 */
export async function createEnvelope(
  ctx: OrgContext,
  input: { body: CreateEnvelopeInput },
): Promise<LoadedEnvelope> {
  const { orgId, actor, db } = ctx;
  const { body } = input;
  const at = nowIso();
  // With template_id the template's document and fields are copied onto the envelope (docs/decisions/envelope-state-machine.md).
  const [template, shards, consent, live] = await Promise.all([
    body.template_id !== undefined ? templateSourceFor(ctx, { body }) : null,
    orgShardSet(ctx.global, orgId),
    consentAtCreate(ctx.global, { orgId, requested: body.consumer_consent ?? null, locale: body.locale ?? null, at }),
    hasLiveEndpoint(ctx.global, orgId),
  ]);
  const envelopeId = newShardId("envelope", ctx.shardId);
  const email = normalizeEmail(body.customer_email);
  const documentSource = template ? "template" : (body.document_source ?? "new");
  const metadata = template?.metadata ?? { document_source: documentSource };
  // Sign + Pay (docs/decisions/sign-and-pay.md): checked (payments on, the organization able to take money) before anything is written.
  // cc recipients (docs/consumer-signing.md): they get the completed copy, never a signing link
  const cc = (body.cc ?? []).map((r) => ({ id: newShardId("ccRecipient", ctx.shardId), name: r.name, email: r.email.trim() }));
  const payment = body.payment ? await planPaymentRequest(ctx, { orgId, envelopeId, documentSource, request: body.payment, at }) : null;

  // the customer on this shard: found, copied from another shard of the organization with its id, or new
  const insertCustomer = await customerOnShard(ctx, { shards, name: body.customer_name, email: body.customer_email.trim(), emailNormalized: email, at });
  const insertEnvelope = createdEnvelopeInsert(db, {
    id: envelopeId,
    orgId,
    emailNormalized: email,
    name: body.envelope_name,
    documentSource,
    externalId: body.external_id ?? null,
    templateId: template?.templateId ?? null,
    metadata: JSON.stringify(metadata),
    prefilledData: body.prefilled_data ? JSON.stringify(body.prefilled_data) : null,
    securedParty: body.secured_party ? JSON.stringify(body.secured_party) : null,
    kbaRequired: template?.kbaRequired ? 1 : 0,
    providerInstance: template?.providerInstance ?? "default",
    expiresInDays: body.expires_in_days ?? 30,
    createdByKeyId: actor.type === "api_key" ? actor.id : null,
    consent,
    at,
  });
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
      ...(payment ? { payment: payment.audit } : {}),
      ...(template ? { template_id: template.templateId } : {}),
      ...(cc.length ? { cc: cc.map(({ name, email }) => ({ name, email })) } : {}),
    },
    at,
  });
  // The event's customer_id is only known once the customer insert has resolved, so its data is
  // assembled in SQL from the envelope row written by the same batch. An organization with no live
  // webhook endpoint (most; read from the global database above) has nothing to fan out: the event
  // commits dispatched, and nothing runs after the request to find that out. The statement takes the
  // endpoints' FROM clause; the answer read above enters it as an always-true or always-false clause.
  const eventId = newShardId("event", ctx.shardId);
  const insertEvent = envelopeCreatedEventInsertReturning(db, { id: eventId, envelopeId, at, hasLiveEndpoint: live });
  // The envelope is read back by the batch's last statement: one D1 round trip for the whole create.
  const statements = [
    // sent with an Idempotency-Key: the mark that makes a retry after an ambiguous failure answer this envelope
    ...keyedCreateMark(ctx, envelopeId, at),
    ...insertCustomer,
    insertEnvelope,
    // reminders (docs/consumer-signing.md): the envelope's own schedule; null falls back to the organization's
    ...(body.reminder_after_days !== undefined || body.reminder_every_days !== undefined
      ? [envelopeReminderSettingsUpdate(db, envelopeId, { afterDays: body.reminder_after_days ?? null, everyDays: body.reminder_every_days ?? null })]
      : []),
    ...(template?.statements(db, envelopeId, at) ?? []),
    ...(cc.length ? [ccRecipientsInsert(db, { envelopeId, orgId, at, cc })] : []),
    ...(payment ? [payment.statement] : []),
    audit.statement,
    esignEnvelopeUsageInsert(db, { orgId, envelopeId, description: `Envelope ${envelopeId} for ${body.customer_name}`, at }),
    insertEvent,
    selectLoadedEnvelope(db, orgId, envelopeId),
  ];
  let results: D1Result<LoadedEnvelopeRow | { dispatched_at: string | null }>[];
  try {
    results = await db.batch<LoadedEnvelopeRow | { dispatched_at: string | null }>(statements);
  } catch (err) {
    // the same keyed request's earlier attempt committed (its answer was lost): that envelope is the answer
    const earlier = await earlierKeyedCreate(ctx, err);
    if (earlier === null) throw err;
    return getEnvelope(db, orgId, earlier);
  }
  const event = results[results.length - 2]?.results[0] as { dispatched_at: string | null } | undefined;
  if (!event?.dispatched_at) ctx.publish(eventId);
  const envelope = loadedEnvelopeOf(results[results.length - 1]?.results[0] as LoadedEnvelopeRow | undefined);
  if (!envelope) throw notFound("Envelope");
  return envelope;
}
