import type { OrgContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { hasUserUpdatedWebhookEndpoint } from "../audit/repository";
import { createEndpoint } from "./create-endpoint";
import { deleteEndpoint } from "./delete-endpoint";
import { endpointView, findLegacyEndpoint } from "./repository";
import { updateEndpoint } from "./update-endpoint";

export const LEGACY_DESCRIPTION = "Migrated from the legacy per-key webhook (PATCH /partner/webhook)";

type EndpointView = ReturnType<typeof endpointView>;

const legacyView = (endpoint: EndpointView | null) => ({
  url: endpoint?.url ?? null,
  endpoint_id: endpoint?.endpoint_id ?? null,
  events: endpoint?.events ?? [],
  is_active: endpoint?.is_active ?? false,
  secret_set: endpoint?.secret_set ?? false,
});

/**
 * The legacy `PATCH /partner/webhook` (spec 9.5) writes through to the organization's migrated
 * endpoint: subscribed to `*`, unsigned (`secret_set: false`) until an admin rotates a secret onto
 * it, created on first use. A URL sets it (and re-enables it); `null` soft-deletes it. The same URL
 * rules and 25-endpoint limit apply as in the console. A partial unique index keeps one live legacy
 * endpoint per organization; a concurrent first PATCH that loses the race updates the winner's.
 */
export async function setLegacyWebhook(ctx: OrgContext, input: { url: string | null }) {
  const current = await findLegacyEndpoint(ctx.global, ctx.orgId);
  // Refused once a console user (an admin) has updated the endpoint since the migration, as the
  // organization's audit chain records it. A secret rotation does not count: an admin may sign the migrated
  // endpoint and the legacy route keeps working (docs/decisions/README.md); a change of its URL, events, state or description does.
  if (current && (await hasUserUpdatedWebhookEndpoint(ctx.global, ctx.orgId, current.id))) {
    throw conflict("An organization admin has changed the migrated webhook endpoint in the console; it is managed there now", { endpoint_id: current.id });
  }
  if (input.url === null) {
    if (current) await deleteEndpoint(ctx, { endpointId: current.id });
    return legacyView(null);
  }
  const update = (endpointId: string, url: string) =>
    updateEndpoint(ctx, { endpointId, patch: { url, is_active: true } });
  if (current) return legacyView(await update(current.id, input.url));
  try {
    const { endpoint } = await createEndpoint(ctx, { url: input.url, events: ["*"], description: LEGACY_DESCRIPTION, legacy: true });
    return legacyView(endpoint);
  } catch (err) {
    const winner = err instanceof Error && /UNIQUE constraint failed: webhook_endpoints\.org_id/.test(err.message) ? await findLegacyEndpoint(ctx.global, ctx.orgId) : null;
    if (!winner) throw err;
    return legacyView(await update(winner.id, input.url));
  }
}
