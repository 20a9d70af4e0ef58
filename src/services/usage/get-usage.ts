import { notFound } from "../../lib/errors";
import type { RequestContext } from "../../lib/context";
import { findOrganization } from "../organizations/repository";
import { onEveryShard } from "../shards/fan-out";
import { orgShardSet } from "../shards/repository";
import { listUsageLines, usageMonth, type UsageLineListed } from "./repository";

/**
 * GET /operator/orgs/:org_id/usage?month=YYYY-MM: one organization's usage lines of a month (UTC;
 * default the current month) with each line's amount and the month's total, per kind and overall.
 * The organization and its shard set are global; its lines are on every shard of the set (each written
 * with its envelope), read concurrently and merged in time order (docs/decisions/shards.md 3).
 */
export async function getUsage(ctx: RequestContext, input: { orgId: string; month?: string }) {
  const month = input.month ?? usageMonth(new Date().toISOString());
  const [org, shards] = await Promise.all([findOrganization(ctx.global, input.orgId), orgShardSet(ctx.global, input.orgId)]);
  if (!org) throw notFound("Organization");
  const perShard = await onEveryShard(ctx, shards, (shard) => listUsageLines(shard.db, input.orgId, month));
  const lines = perShard.flat().sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  const rows = lines.map((l) => ({ line_id: l.id, ...withoutId(l), amount_cents: l.quantity * l.unit_cents }));
  const byKind: Record<string, { quantity: number; amount_cents: number }> = {};
  for (const l of rows) {
    const k = (byKind[l.kind] ??= { quantity: 0, amount_cents: 0 });
    k.quantity += l.quantity;
    k.amount_cents += l.amount_cents;
  }
  return { org_id: input.orgId, month, currency: "usd" as const, lines: rows, by_kind: byKind, total_cents: rows.reduce((sum, l) => sum + l.amount_cents, 0) };
}

const withoutId = ({ id: _id, ...rest }: UsageLineListed) => rest;
