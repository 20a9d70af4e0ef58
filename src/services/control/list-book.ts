import type { OrgContext } from "../../lib/context";
import { listOrganizationNames } from "../organizations/repository";
import { listBook, type BookRole } from "../vault/repository";
import { listPendingTransfersOf } from "./repository";
import { controlSummary, namedOrgIds, type ControlSummaryView } from "./view";

/**
 * GET /partner/vault: the caller's book, newest first: the records it controls (default), originated or
 * has pledged. Each item is the record without its live compliance (GET /partner/vault/:vault_id has
 * it): a page costs four statements whatever its size (the page and its count, the parties' names,
 * the pending transfers).
 */
export async function listControlBook(
  ctx: OrgContext,
  input: { role: BookRole; page: number; limit: number },
): Promise<{ rows: ControlSummaryView[]; total: number }> {
  const { rows, total } = await listBook(ctx.db, { orgId: ctx.orgId, role: input.role, limit: input.limit, offset: (input.page - 1) * input.limit });
  const orgIds = [...new Set(rows.flatMap(namedOrgIds))];
  const [names, pending] = await Promise.all([listOrganizationNames(ctx.db, orgIds), listPendingTransfersOf(ctx.db, rows.map((r) => r.id))]);
  const byId = new Map(names.map((n) => [n.id, n.name]));
  const pendingOf = new Map(pending.map((t) => [t.vault_id, t]));
  return { rows: rows.map((r) => controlSummary(r, pendingOf.get(r.id) ?? null, byId)), total };
}
