import type { KbaOutcome } from "../../db/schema/kba";
import { newShardId } from "../../lib/shards";
import type { RequestContext } from "../../lib/context";
import type { EnvelopeChange } from "../envelopes/commit";
import type { LoadedEnvelope } from "../envelopes/repository";
import type { SignerRow } from "../signers/repository";
import { signerActor, signerData, type RequestOrigin } from "../signers/signer-actor";
import { USAGE_KINDS } from "../usage/prices";
import { usageLineInsert } from "../usage/record-usage";
import { kbaResultInsert } from "./repository";

/**
 * Only a verified signer is billed (spec part 8: "400 cents per verified signer"; docs/decisions/sign-and-pay.md: "per
 * verified client signer"): `passed`. A `failed` check verified nobody and `unavailable` asked nothing;
 * both are recorded at 0 cents.
 */
export const billable = (outcome: KbaOutcome) => outcome === "passed";

/** A signer's final KBA outcome as the envelope change that records it, for `commitKba` (./commit.ts). */
export type KbaOutcomeChange = { envelope: LoadedEnvelope; change: EnvelopeChange };

/**
 * The envelope change that records a signer's final KBA outcome: the audit entry
 * `envelope.kba_verified` on the envelope's chain with the timeline record `kba.verified` (already
 * dispatched, so it never reaches a webhook: spec 6.5 makes it a record, not an event), the KBA result
 * (unique per signer), and, for a verified signer, the usage line (unique per signer and provider
 * session: billed once). Only the outcome is recorded: never a question, never an answer.
 */
export function outcomeChange(
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
): KbaOutcomeChange {
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
  const statements = [
    kbaResultInsert(db, {
      id: newShardId("kbaResult", ctx.shardId),
      signer_id: signer.id,
      envelope_id: envelope.id,
      org_id: envelope.org_id,
      signer_email: signer.email,
      status: outcome,
      provider: input.provider,
      provider_session_id: input.providerSessionId,
      ip_address: input.origin.ip,
      price_cents: price,
      attempts: input.attempts,
      occurred_at: at,
    }),
  ];
  if (billable(outcome)) {
    statements.push(
      usageLineInsert(db, {
        orgId: envelope.org_id,
        kind: "kba_verification",
        envelopeId: envelope.id,
        signerId: signer.id,
        description: `${USAGE_KINDS.kba_verification.label}: ${signer.email}, envelope ${envelope.id}`,
        // one verification, billed once: a scored set never bills twice, and a signer whose KBA a
        // correction started over (a new email, a new person) is billed for the new verification
        uniqueKey: `kba_verification:${signer.id}:${input.providerSessionId}`,
        at,
      }),
    );
  }
  return {
    envelope,
    change: {
      entries: [{ action: "envelope.kba_verified", data: record, timeline: { type: "kba.verified", data: record } }],
      statements,
      actor: signerActor(signer, input.origin),
      at,
    },
  };
}
