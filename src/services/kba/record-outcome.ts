import type { KbaOutcome } from "../../db/schema/kba";
import { randomToken } from "../../lib/ids";
import type { RequestContext } from "../../lib/context";
import { auditInsert } from "../audit/chain";
import type { LoadedEnvelope } from "../envelopes/repository";
import type { SignerRow } from "../signers/repository";
import { signerActor, signerData, type RequestOrigin } from "../signing/signer-actor";
import { USAGE_KINDS } from "../usage/prices";
import { usageLineInsert } from "../usage/record-usage";

/** The timeline entry of a KBA outcome (spec 6.5: a record, not a webhook event). */
export const KBA_TIMELINE_EVENT = "kba.verified";
export const KBA_AUDIT_ACTION = "envelope.kba_verified";

/** Only a verification performed is billed: passed or failed. `unavailable` asked nothing and costs nothing. */
export const billable = (outcome: KbaOutcome) => outcome !== "unavailable";

/**
 * The statements that record a signer's final KBA outcome, for the batch that also moves the signer's
 * check (whose guard comes first in that batch): the KBA result (unique per signer), the audit entry
 * `envelope.kba_verified` on the envelope's chain (the envelope's `audit_seq` advanced with it), the
 * timeline entry `kba.verified` (an events row written already dispatched, so it is never fanned out
 * to webhooks), and, for a verification performed, the usage line (unique per signer: billed once).
 * Only the outcome is recorded: never a question, never an answer.
 */
export async function outcomeStatements(
  ctx: RequestContext,
  input: {
    envelope: LoadedEnvelope;
    signer: SignerRow;
    outcome: KbaOutcome;
    provider: string;
    providerSessionId: string;
    attempts: number;
    origin: RequestOrigin;
    at: string;
  },
): Promise<D1PreparedStatement[]> {
  const { db } = ctx;
  const { envelope, signer, outcome, at } = input;
  const price = billable(outcome) ? USAGE_KINDS.kba_verification.unitCents : 0;
  const record = {
    envelope_id: envelope.id,
    ...signerData(signer),
    outcome,
    provider: input.provider,
    provider_session_id: input.providerSessionId,
    ip_address: input.origin.ip,
    occurred_at: at,
    attempts: input.attempts,
    price_cents: price,
  };
  const audit = await auditInsert(db, {
    orgId: envelope.org_id,
    chainId: envelope.id,
    head: envelope.head,
    action: KBA_AUDIT_ACTION,
    actor: signerActor(signer, input.origin),
    data: record,
    at,
  });
  const statements = [
    db.prepare("UPDATE envelopes SET audit_seq = audit_seq + 1, updated_at = ? WHERE id = ? AND audit_seq = ?").bind(at, envelope.id, envelope.audit_seq),
    audit.statement,
    db
      .prepare(
        `INSERT INTO kba_results (id, signer_id, envelope_id, org_id, signer_email, status, provider, provider_session_id, ip_address, price_cents, attempts, occurred_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(`kbar_${randomToken(16)}`, signer.id, envelope.id, envelope.org_id, signer.email, outcome, input.provider, input.providerSessionId, input.origin.ip, price, input.attempts, at),
    db
      .prepare("INSERT INTO events (id, org_id, envelope_id, type, data, created_at, dispatched_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .bind(`evt_${randomToken(16)}`, envelope.org_id, envelope.id, KBA_TIMELINE_EVENT, JSON.stringify(record), at, at),
  ];
  if (billable(outcome)) {
    statements.push(
      usageLineInsert(db, {
        orgId: envelope.org_id,
        kind: "kba_verification",
        envelopeId: envelope.id,
        signerId: signer.id,
        description: `${USAGE_KINDS.kba_verification.label} (${outcome}): ${signer.email}, envelope ${envelope.id}`,
        uniqueKey: `kba_verification:${signer.id}`,
        at,
      }),
    );
  }
  return statements;
}
