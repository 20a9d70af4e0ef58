import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { auditInsert, GENESIS_HASH } from "../audit/chain";
import type { OrgContext } from "../../lib/context";
import { templateSourceFor } from "./envelope-source";
import { planPaymentRequest } from "../payments/request-payment";
import { notFound } from "../../lib/errors";
import { liveEndpointsOf } from "../webhooks/fan-out";
import { customerInsertIfAbsent } from "../customers/repository";
import { envelopeCreatedEventInsertReturning } from "../events/repository";
import { ccRecipientsInsert, createdEnvelopeInsert, envelopeReminderSettingsUpdate, loadedEnvelopeOf, selectLoadedEnvelope, type LoadedEnvelope, type LoadedEnvelopeRow } from "../envelopes/repository";
import { esignEnvelopeUsageInsert } from "../usage/record-usage";
import { defaultDisclosureRow } from "../consent/disclosure";
import { defaultDisclosureInsertIfNone } from "../consent/repository";
import { envelopeConsentUpdate } from "../envelopes/repository";
import type { CreateEnvelopeInput } from "./schema";

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * Creates a `pending` envelope for the customer with that email, provisioning the customer on the
 * fly. Customer, envelope, first audit entry, `envelope.created` and the envelope's one e-sign usage
 * line commit in one batch; the customer insert is idempotent on (org, email), so two concurrent
 * creates for a new address share one customer.
 */
export async function createEnvelope(
  ctx: OrgContext,
  input: { body: CreateEnvelopeInput },
): Promise<LoadedEnvelope> {
  const { orgId, actor, db } = ctx;
  const { body } = input;
  // With template_id the template's document and fields are copied onto the envelope (DESIGN.md 3).
  const template = body.template_id !== undefined ? await templateSourceFor(ctx, { body }) : null;
  const at = nowIso();
  const envelopeId = newId("envelope");
  const email = normalizeEmail(body.customer_email);
  const documentSource = template ? "template" : (body.document_source ?? "new");
  const metadata = template?.metadata ?? { document_source: documentSource };
  // Sign + Pay (DESIGN.md 7): checked (payments on, the organization able to take money) before anything is written.
  // cc recipients (DESIGN.md 12): they get the completed copy, never a signing link
  const cc = (body.cc ?? []).map((r) => ({ id: newId("ccRecipient"), name: r.name, email: r.email.trim() }));
  const payment = body.payment ? await planPaymentRequest(ctx, { orgId, envelopeId, documentSource, request: body.payment, at }) : null;

  const insertCustomer = customerInsertIfAbsent(db, {
    id: newId("customer"),
    org_id: orgId,
    name: body.customer_name,
    email: body.customer_email.trim(),
    email_normalized: email,
    at,
  });
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
    at,
  });
  // E-SIGN consent (DESIGN.md 12): asked for explicitly with no disclosure saved, the shipped default is stored as version 0 and pinned
  const pinDefault =
    body.consumer_consent === true ? [defaultDisclosureInsertIfNone(db, await defaultDisclosureRow({ id: newId("disclosure"), orgId, at }))] : [];
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
  // webhook endpoint (most) has nothing to fan out: the event commits dispatched, and the request
  // makes no second round trip to find that out (fan-out.ts does the same check for other events).
  const eventId = newId("event");
  const insertEvent = envelopeCreatedEventInsertReturning(db, { id: eventId, envelopeId, at, liveEndpoints: liveEndpointsOf("e.org_id") });
  // The envelope is read back by the batch's last statement: one D1 round trip for the whole create.
  const results = await db.batch<LoadedEnvelopeRow | { dispatched_at: string | null }>([
    insertCustomer,
    insertEnvelope,
    // reminders (DESIGN.md 12): the envelope's own schedule; null falls back to the organization's
    ...(body.reminder_after_days !== undefined || body.reminder_every_days !== undefined
      ? [envelopeReminderSettingsUpdate(db, envelopeId, { afterDays: body.reminder_after_days ?? null, everyDays: body.reminder_every_days ?? null })]
      : []),
    ...pinDefault,
    envelopeConsentUpdate(db, { envelopeId, orgId, requested: body.consumer_consent ?? null }),
    ...(template?.statements(db, envelopeId, at) ?? []),
    ...(cc.length ? [ccRecipientsInsert(db, { envelopeId, orgId, at, cc })] : []),
    ...(payment ? [payment.statement] : []),
    audit.statement,
    esignEnvelopeUsageInsert(db, { orgId, envelopeId, description: `Envelope ${envelopeId} for ${body.customer_name}`, at }),
    insertEvent,
    selectLoadedEnvelope(db, orgId, envelopeId),
  ]);
  const event = results[results.length - 2]?.results[0] as { dispatched_at: string | null } | undefined;
  if (!event?.dispatched_at) ctx.publish(eventId);
  const envelope = loadedEnvelopeOf(results[results.length - 1]?.results[0] as LoadedEnvelopeRow | undefined);
  if (!envelope) throw notFound("Envelope");
  return envelope;
}
