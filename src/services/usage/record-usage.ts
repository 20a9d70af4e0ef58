// The usage line's INSERT lives with the table's other statements (./repository.ts); these names stay
// importable from here for the verbs that bill (kba/record-outcome.ts, compose/create-envelope.ts,
// bulk/create-bulk-envelope.ts).
import { usageLineInsert } from "./repository";

export { usageLineInsert, usageMonth, type UsageLineInput } from "./repository";

/**
 * The envelope's one `esign_envelope` usage line (spec 4.8: "each envelope counts once toward e-sign
 * usage"), for the batch that creates it, whichever way it is created (the API, bulk send). Its unique
 * key is the envelope id, so a replayed create fails whole rather than counting the envelope twice.
 */
export function esignEnvelopeUsageInsert(db: D1Database, input: { orgId: string; envelopeId: string; description: string; at: string }): D1PreparedStatement {
  return usageLineInsert(db, {
    orgId: input.orgId,
    kind: "esign_envelope",
    envelopeId: input.envelopeId,
    signerId: null,
    description: input.description,
    uniqueKey: `esign_envelope:${input.envelopeId}`,
    at: input.at,
  });
}
