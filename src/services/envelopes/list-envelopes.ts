import type { OrgContext } from "../../lib/context";
import type { EnvelopeStatus } from "../../db/schema";
import { listEnvelopesPage } from "./repository";

export type ListEnvelopesInput = {
  page: number;
  limit: number;
  customerId?: string;
  status?: EnvelopeStatus;
};

/** Newest first; `total` counts every envelope matching the filters. */
export async function listEnvelopes(ctx: OrgContext, input: ListEnvelopesInput) {
  return listEnvelopesPage(ctx.db, {
    orgId: ctx.orgId,
    customerId: input.customerId,
    status: input.status,
    limit: input.limit,
    offset: (input.page - 1) * input.limit,
  });
}
