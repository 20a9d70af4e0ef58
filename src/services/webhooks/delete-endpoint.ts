import type { OrgContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { failInFlightEverywhere } from "./fail-in-flight";
import { endpointSoftDelete, getEndpoint } from "./repository";

/**
 * Soft delete (spec 4.10): the endpoint stops receiving events and leaves the list, its delivery log
 * stays readable, and its in-flight deliveries are failed right after, on every shard of the organization.
 */
export async function deleteEndpoint(ctx: OrgContext, input: { endpointId: string }) {
  const db = ctx.global;
  const current = await getEndpoint(db, ctx.orgId, input.endpointId);
  const at = nowIso();
  const results = await commitWithOrgAudit(
    db,
    { orgId: ctx.orgId, action: "webhook_endpoint.deleted", actor: ctx.actor, data: { endpoint_id: current.id, url: current.url }, at },
    [endpointSoftDelete(db, { id: current.id, orgId: ctx.orgId, at })],
    { guarded: true },
  );
  if (results[0]?.meta.changes !== 1) throw notFound("Webhook endpoint");
  // global first (the endpoint no longer delivers), then its pending deliveries on every shard of the organization
  await failInFlightEverywhere(ctx, current.id, "endpoint deleted", at);
  return { endpoint_id: current.id, deleted: true as const };
}
