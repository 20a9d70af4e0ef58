import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifyChain } from "../../src/services/audit/verify-chain";
import { deleteEndpoint } from "../../src/services/webhooks/delete-endpoint";
import { rotateSecret } from "../../src/services/webhooks/rotate-secret";
import { updateEndpoint } from "../../src/services/webhooks/update-endpoint";
import { newTenant } from "../helpers/api";
import { orgContext } from "../helpers/context";
import { adminToken, createEndpoint } from "../helpers/webhooks";
import { racedDb } from "../helpers/raced-db";
import type { GlobalDb } from "../../src/lib/shards";


async function actions(orgId: string) {
  const { results } = await env.DB.prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(orgId).all<{ action: string }>();
  return results.map((r) => r.action);
}

async function endpointAndRace(competitorSql: string) {
  const t = await newTenant();
  const endpoint = await createEndpoint(await adminToken(t.orgId), { url: "https://hooks.lender.example/esign" });
  const before = await actions(t.orgId);
  const ctx = { ...orgContext(t.orgId) };
  ctx.global = racedDb(env.DB, () => env.DB.prepare(competitorSql).bind(endpoint.endpoint_id).run()) as GlobalDb;
  return { t, endpoint, before, ctx };
}

describe("org-level writes that lost their guard leave no audit entry for a change that never happened", () => {
  it("a secret rotation beaten by a concurrent rotation answers 409 and records nothing", async () => {
    const { t, endpoint, before, ctx } = await endpointAndRace("UPDATE webhook_endpoints SET secret = 'whsec_other_rotation' WHERE id = ?");
    await expect(rotateSecret(ctx, { endpointId: endpoint.endpoint_id })).rejects.toMatchObject({ status: 409 });
    expect(await actions(t.orgId)).toEqual(before);
    expect(await verifyChain(env.DB, t.orgId)).toMatchObject({ verified: true });
  });

  it("an update of an endpoint deleted meanwhile answers 404 and records nothing", async () => {
    const { t, endpoint, before, ctx } = await endpointAndRace("UPDATE webhook_endpoints SET deleted_at = '2026-01-01T00:00:00.000Z' WHERE id = ?");
    await expect(updateEndpoint(ctx, { endpointId: endpoint.endpoint_id, patch: { description: "late" } })).rejects.toMatchObject({ status: 404 });
    expect(await actions(t.orgId)).toEqual(before);
  });

  it("a second delete that lost the race answers 404 and records no second deletion", async () => {
    const { t, endpoint, before, ctx } = await endpointAndRace("UPDATE webhook_endpoints SET deleted_at = '2026-01-01T00:00:00.000Z' WHERE id = ?");
    await expect(deleteEndpoint(ctx, { endpointId: endpoint.endpoint_id })).rejects.toMatchObject({ status: 404 });
    expect(await actions(t.orgId)).toEqual(before);
  });

  it("an uncontended rotation, update and delete are each recorded once", async () => {
    const t = await newTenant();
    const endpoint = await createEndpoint(await adminToken(t.orgId), { url: "https://hooks.lender.example/esign" });
    const ctx = orgContext(t.orgId);
    await rotateSecret(ctx, { endpointId: endpoint.endpoint_id });
    await updateEndpoint(ctx, { endpointId: endpoint.endpoint_id, patch: { description: "renamed" } });
    await deleteEndpoint(ctx, { endpointId: endpoint.endpoint_id });
    expect((await actions(t.orgId)).slice(-3)).toEqual(["webhook_endpoint.secret_rotated", "webhook_endpoint.updated", "webhook_endpoint.deleted"]);
    expect(await verifyChain(env.DB, t.orgId)).toMatchObject({ verified: true });
  });
});
