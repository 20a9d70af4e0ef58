import type { OrgContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { findEnvelopeStatusColumns, findEnvelopeStatusColumnsUnscoped, type EnvelopeStatusColumns } from "./repository";

/** The columns the status answer needs (serialize.ts envelopeStatus), and nothing else. */
export type EnvelopeStatusRow = EnvelopeStatusColumns;

/** The same row before the caller's organization is known, with the organization to check it against. */
export type UnscopedStatusRow = EnvelopeStatusRow & { org_id: string };

/** What the unscoped read found for the id it was asked for. */
export type SpeculatedStatus = { envelopeId: string; row: UnscopedStatusRow | null };

/**
 * The status read unscoped, for partnerAuth to start beside the key's limiter round trip
 * (middleware/speculative-read.ts): the row carries its org_id, and readEnvelopeStatus answers from
 * it only for that organization. An id longer than any id is not looked up.
 */
export async function readEnvelopeStatusUnscoped(db: D1Database, envelopeId: string): Promise<SpeculatedStatus> {
  if (envelopeId.length > 64) return { envelopeId, row: null };
  return { envelopeId, row: await findEnvelopeStatusColumnsUnscoped(db, envelopeId) };
}

/**
 * GET /partner/envelopes/:id/status, the partner's polling read: one primary-key lookup of six narrow
 * columns, scoped to the caller's organization (anything else is not found). Unlike the envelope read (read-back/read-envelope-detail.ts) it
 * skips the audit chain head and the wide text columns (metadata, prefilled data), which a poll never
 * shows. `speculated` is readEnvelopeStatusUnscoped's answer, started before the caller was admitted;
 * without it (or for another id) the read is made here.
 */
export async function readEnvelopeStatus(
  ctx: OrgContext,
  input: { envelopeId: string; speculated?: Promise<SpeculatedStatus> },
): Promise<EnvelopeStatusRow> {
  const speculated = input.speculated ? await input.speculated : null;
  if (speculated?.envelopeId === input.envelopeId) {
    if (!speculated.row || speculated.row.org_id !== ctx.orgId) throw notFound("Envelope");
    const { org_id: _org, ...scoped } = speculated.row;
    return scoped;
  }
  const row = await findEnvelopeStatusColumns(ctx.db, ctx.orgId, input.envelopeId);
  if (!row) throw notFound("Envelope");
  return row;
}
