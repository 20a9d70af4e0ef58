import type { OrgContext } from "../../lib/context";
import { ApiError } from "../../lib/errors";
import { getEnvelope } from "../envelopes/repository";
import type { Certificate } from "./certificate";
import { latestCertificate } from "./repository";

/** The current (newest) compliance certificate of an envelope; 404 until vault-in has issued one. */
export async function getCertificate(ctx: OrgContext, input: { envelopeId: string }): Promise<Certificate> {
  const envelope = await getEnvelope(ctx.db, ctx.orgId, input.envelopeId);
  const row = await latestCertificate(ctx.db, envelope.id);
  if (!row) throw new ApiError(404, "Compliance certificate not found: it is generated when the envelope is vaulted");
  return JSON.parse(row.body) as Certificate;
}
