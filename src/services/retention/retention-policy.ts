import type { OrgContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { DEFAULT_RETAIN_YEARS } from "../control/close-record";
import { listRetentionPolicies, retentionPolicyUpdate } from "../organizations/repository";
import type { RetentionPolicy } from "./schema";

/** GET /org/retention: the organization's retention policy of closed vault records (docs/control.md "Retention"). */
export async function getRetentionPolicy(ctx: OrgContext): Promise<RetentionPolicy> {
  const [row] = await listRetentionPolicies(ctx.global, [ctx.orgId]);
  if (!row) throw notFound("Organization");
  return {
    org_id: row.id,
    retain_years_after_close: row.retain_years_after_close ?? DEFAULT_RETAIN_YEARS,
    auto_destroy: row.auto_destroy === 1,
    updated_at: row.retention_updated_at,
  };
}

/**
 * PUT /org/retention: replaces the policy, with its entry on the organization's chain in one batch. It applies to
 * records the organization closes from now on (their `retain_until`) and, with `auto_destroy`, to every record it
 * controls whose `retain_until` has passed.
 */
export async function setRetentionPolicy(ctx: OrgContext, input: { retainYearsAfterClose: number; autoDestroy: boolean }): Promise<RetentionPolicy> {
  const at = nowIso();
  await commitWithOrgAudit(
    ctx.global,
    {
      orgId: ctx.orgId,
      action: "org.retention_updated",
      actor: ctx.actor,
      data: { retain_years_after_close: input.retainYearsAfterClose, auto_destroy: input.autoDestroy },
      at,
    },
    [retentionPolicyUpdate(ctx.global, ctx.orgId, input, at)],
  );
  return getRetentionPolicy(ctx);
}
