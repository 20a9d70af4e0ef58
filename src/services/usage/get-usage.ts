import { notFound } from "../../lib/errors";
import type { RequestContext } from "../../lib/context";
import { selectOrganizationId } from "../organizations/repository";
import { selectUsageLines, usageMonth, type UsageLineListed } from "./repository";

/**
 * GET /operator/orgs/:org_id/usage?month=YYYY-MM: one organization's usage lines of a month (UTC;
 * default the current month) with each line's amount and the month's total, per kind and overall.
 */
export async function getUsage(ctx: RequestContext, input: { orgId: string; month?: string }) {
  const month = input.month ?? usageMonth(new Date().toISOString());
  const [org, lines] = await ctx.db.batch([
    selectOrganizationId(ctx.db, input.orgId),
    selectUsageLines(ctx.db, input.orgId, month),
  ]);
  if (org!.results.length === 0) throw notFound("Organization");
  const rows = (lines!.results as UsageLineListed[]).map((l) => ({ line_id: l.id, ...withoutId(l), amount_cents: l.quantity * l.unit_cents }));
  const byKind: Record<string, { quantity: number; amount_cents: number }> = {};
  for (const l of rows) {
    const k = (byKind[l.kind] ??= { quantity: 0, amount_cents: 0 });
    k.quantity += l.quantity;
    k.amount_cents += l.amount_cents;
  }
  return { org_id: input.orgId, month, currency: "usd" as const, lines: rows, by_kind: byKind, total_cents: rows.reduce((sum, l) => sum + l.amount_cents, 0) };
}

const withoutId = ({ id: _id, ...rest }: UsageLineListed) => rest;
