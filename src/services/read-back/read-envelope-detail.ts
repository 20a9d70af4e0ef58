import type { OrgContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import type { GlobalDb, ShardDb } from "../../lib/shards";
import { LOADED_ENVELOPE_COLUMNS, loadedEnvelopeOf, type LoadedEnvelope, type LoadedEnvelopeRow } from "../envelopes/repository";
import { envelopeDetail } from "../envelopes/serialize";
import type { PaymentStatus } from "../../db/schema";
import { maskPhone } from "../otp/mask-phone";
import { readBackStatus, reminderSchedule, turnCameAt, type SignerFacts } from "./signer-view";

/** The envelope row as the detail statement reads it: the loaded envelope's columns and the read-back's JSON columns. */
type DetailRow = LoadedEnvelopeRow & { signers_json: string | null; declines_json: string | null; payment_json: string | null };

/** What the detail needs of the organization (global database): its reminder defaults and its disclosure versions by id. */
type OrgFacts = { after_days: number | null; every_days: number | null; disclosure_versions: string | null };

/**
 * The envelope and everything the read shows beside it, in one statement on its shard: the loaded
 * envelope's columns (chain head, vault id, cc), its signers in signing order each with their KBA
 * check, the chain's `signer.declined` entries (the decline's time and reason live only there) and its
 * payment.
 */
function detailStatement(db: ShardDb, orgId: string, envelopeId: string): D1PreparedStatement {
  // SQL exception: one envelope read names five owners' rows (signers, kba_checks, signer_otps, audit_log, payments), each by
  // its envelope index (signers_envelope_idx with kba_checks' primary key, the chain's (chain_id, seq) index,
  // payments_envelope_uq): GET /partner/envelopes/:id stays one statement on its shard whatever the signers.
  return db
    .prepare(
      `SELECT ${LOADED_ENVELOPE_COLUMNS},
         (SELECT json_group_array(json_object('id', s.id, 'name', s.name, 'email', s.email, 'role', s.role, 'routing_order', s.routing_order,
                   'status', s.status, 'viewed_at', s.viewed_at, 'signed_at', s.signed_at, 'created_at', s.created_at,
                   'consent_given_at', s.consent_given_at, 'kba_status', k.status, 'phone', s.phone,
                   'otp', o.signer_id IS NOT NULL, 'otp_verified_at', o.verified_at, 'n', s.rowid))
            FROM signers s LEFT JOIN kba_checks k ON k.signer_id = s.id LEFT JOIN signer_otps o ON o.signer_id = s.id WHERE s.envelope_id = e.id) AS signers_json,
         (SELECT json_group_array(json_object('signer_id', json_extract(a.data, '$.signer.id'), 'at', a.created_at, 'reason', json_extract(a.data, '$.reason')))
            FROM audit_log a WHERE a.chain_id = e.id AND a.action = 'signer.declined') AS declines_json,
         (SELECT json_object('status', p.status, 'amount', p.amount_cents, 'currency', p.currency, 'payer_email', p.payer_email, 'paid_at', p.paid_at)
            FROM payments p WHERE p.envelope_id = e.id) AS payment_json
       FROM envelopes e WHERE e.id = ? AND e.org_id = ?`,
    )
    .bind(envelopeId, orgId);
}

/**
 * The organization's reminder defaults and every disclosure version it saved (`{ id: version }`), read
 * from the global database beside the shard's statement: the envelope's pinned `disclosure_id` is not
 * known before that statement answers, and an organization saves few versions.
 */
function orgFactsStatement(db: GlobalDb, orgId: string): D1PreparedStatement {
  // SQL exception: the organization's row and its disclosures (esign_disclosures_org_version_uq) in one global read, run beside the shard's.
  return db
    .prepare(
      `SELECT o.reminder_after_days AS after_days, o.reminder_every_days AS every_days,
         (SELECT json_group_object(d.id, d.version) FROM esign_disclosures d WHERE d.org_id = o.id) AS disclosure_versions
       FROM organizations o WHERE o.id = ?`,
    )
    .bind(orgId);
}

type StoredSigner = Omit<SignerFacts, "declined_at" | "decline_reason"> & { n: number };

/** GET /partner/envelopes/:id (docs/decisions/read-back.md): the envelope with its signers, reminders and payment; 404 outside the organization. */
export async function readEnvelopeDetail(ctx: OrgContext, input: { envelopeId: string }, now = nowIso()) {
  const [row, org] = await Promise.all([
    detailStatement(ctx.db, ctx.orgId, input.envelopeId).first<DetailRow>(),
    orgFactsStatement(ctx.global, ctx.orgId).first<OrgFacts>(),
  ]);
  const envelope = loadedEnvelopeOf(row);
  if (!row || !envelope) throw notFound("Envelope");
  return envelopeReadBack(envelope, row, org, now);
}

function envelopeReadBack(envelope: LoadedEnvelope, row: DetailRow, org: OrgFacts | null, now: string) {
  const stored = (JSON.parse(row.signers_json ?? "[]") as StoredSigner[]).sort((a, b) => a.routing_order - b.routing_order || a.n - b.n);
  const declines = new Map((JSON.parse(row.declines_json ?? "[]") as { signer_id: string; at: string; reason: string | null }[]).map((d) => [d.signer_id, d]));
  const versions = JSON.parse(org?.disclosure_versions ?? "{}") as Record<string, number>;
  // no pinned row: the shipped default, version 0 (consent/disclosure.ts)
  const disclosureVersion = envelope.disclosure_id === null ? 0 : (versions[envelope.disclosure_id] ?? null);
  const payment = row.payment_json ? (JSON.parse(row.payment_json) as { status: PaymentStatus; amount: number; currency: string; payer_email: string; paid_at: string | null }) : null;
  return {
    ...envelopeDetail(envelope),
    signers: stored.map((s) => {
      const sentAt = turnCameAt(s, stored);
      const declined = declines.get(s.id);
      return {
        signer_id: s.id,
        name: s.name,
        email: s.email,
        role: s.role,
        routing_order: s.routing_order,
        status: readBackStatus(s, sentAt),
        sent_at: sentAt,
        viewed_at: s.viewed_at,
        completed_at: s.status === "completed" ? s.signed_at : null,
        declined_at: s.status === "declined" ? (declined?.at ?? null) : null,
        decline_reason: s.status === "declined" ? (declined?.reason ?? null) : null,
        consent: envelope.consumer_consent === 1 ? { required: true, given_at: s.consent_given_at, disclosure_version: disclosureVersion } : null,
        kba: envelope.kba_required === 1 ? { required: s.kba_status !== null, status: s.kba_status } : null,
        auth: s.otp ? ("sms_otp" as const) : null,
        otp: s.otp ? { phone: s.phone ? maskPhone(s.phone) : null, verified: s.otp_verified_at != null, verified_at: s.otp_verified_at ?? null } : null,
      };
    }),
    reminders: reminderSchedule(envelope, { after_days: org?.after_days ?? null, every_days: org?.every_days ?? null }, now),
    payment,
  };
}
