import type { OrgContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { failInFlightEverywhere } from "./fail-in-flight";
import { endpointUpdate, endpointView, getEndpoint, invalidUrl } from "./repository";
import { checkWebhookUrl, urlPolicyOf } from "./url-policy";

export type EndpointPatch = { url?: string; description?: string; events?: string[]; is_active?: boolean };

/**
 * Changes url, description, events or the active state. Disabling stops retries at once: the
 * endpoint's pending deliveries are failed right after it, on every shard of the organization. A new URL takes effect from the next
 * attempt, pending retries included (each attempt reads the endpoint afresh).
 */
export async function updateEndpoint(ctx: OrgContext, input: { endpointId: string; patch: EndpointPatch }) {
  const db = ctx.global;
  const { patch } = input;
  const current = await getEndpoint(db, ctx.orgId, input.endpointId);
  if (patch.url !== undefined) {
    const verdict = checkWebhookUrl(patch.url, urlPolicyOf(ctx.env));
    if (!verdict.ok) throw invalidUrl(patch.url, verdict.reason);
  }
  const changes: Record<string, string | number> = {};
  if (patch.url !== undefined) changes.url = patch.url;
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.events !== undefined) changes.events = JSON.stringify([...new Set(patch.events)]);
  if (patch.is_active !== undefined) changes.is_active = patch.is_active ? 1 : 0;
  const at = nowIso();
  // re-enabling it or pointing it elsewhere resumes a paused (or failing) endpoint with a clean record
  const resume = patch.is_active === true || patch.url !== undefined;
  const results = await commitWithOrgAudit(
    db,
    { orgId: ctx.orgId, action: "webhook_endpoint.updated", actor: ctx.actor, data: { endpoint_id: current.id, ...patch }, at },
    [endpointUpdate(db, { id: current.id, orgId: ctx.orgId, changes, resume, at })],
    { guarded: true },
  );
  if (results[0]?.meta.changes !== 1) throw notFound("Webhook endpoint");
  // global first (the endpoint no longer delivers), then its pending deliveries on every shard of the organization
  if (patch.is_active === false) await failInFlightEverywhere(ctx, current.id, "endpoint disabled", at);
  return endpointView(await getEndpoint(db, ctx.orgId, current.id));
}
