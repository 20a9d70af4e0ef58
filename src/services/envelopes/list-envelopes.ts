import type { OrgContext } from "../../lib/context";
import type { EnvelopeStatus } from "../../db/schema";
import type { EnvelopeRow } from "./repository";

export type ListEnvelopesInput = {
  page: number;
  limit: number;
  customerId?: string;
  status?: EnvelopeStatus;
};

/** Newest first; `total` counts every envelope matching the filters. */
export async function listEnvelopes(ctx: OrgContext, input: ListEnvelopesInput) {
  const db = ctx.db;
  const where = ["org_id = ?"];
  const params: (string | number)[] = [ctx.orgId];
  if (input.customerId) {
    where.push("customer_id = ?");
    params.push(input.customerId);
  }
  if (input.status) {
    where.push("status = ?");
    params.push(input.status);
  }
  const clause = where.join(" AND ");
  const [rows, count] = await db.batch<EnvelopeRow | { total: number }>([
    db
      .prepare(`SELECT * FROM envelopes WHERE ${clause} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
      .bind(...params, input.limit, (input.page - 1) * input.limit),
    db.prepare(`SELECT COUNT(*) AS total FROM envelopes WHERE ${clause}`).bind(...params),
  ]);
  return {
    rows: (rows?.results ?? []) as EnvelopeRow[],
    total: ((count?.results[0] as { total: number } | undefined)?.total ?? 0),
  };
}
