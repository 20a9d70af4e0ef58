import type { OrgContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import type { EnvelopeRow } from "./repository";

/** The columns the status answer needs (serialize.ts envelopeStatus), and nothing else. */
export type EnvelopeStatusRow = Pick<EnvelopeRow, "id" | "status" | "vaulted_at" | "certificate_issued_at" | "signed_at" | "updated_at">;

/**
 * GET /partner/envelopes/:id/status, the partner's polling read: one primary-key lookup of six narrow
 * columns, scoped to the caller's organization (anything else is not found). Unlike readEnvelope it
 * skips the audit chain head and the wide text columns (metadata, prefilled data), which a poll never shows.
 */
export async function readEnvelopeStatus(ctx: OrgContext, input: { envelopeId: string }): Promise<EnvelopeStatusRow> {
  const row = await ctx.db
    .prepare("SELECT id, status, vaulted_at, certificate_issued_at, signed_at, updated_at FROM envelopes WHERE id = ? AND org_id = ?")
    .bind(input.envelopeId, ctx.orgId)
    .first<EnvelopeStatusRow>();
  if (!row) throw notFound("Envelope");
  return row;
}
