import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sweepDeliveries } from "../../src/jobs/sweep-deliveries";
import { newShardId } from "../../src/lib/shards";
import { endpointAnchorInsert, orgAnchorInsert } from "../../src/services/shards/repository";
import { call } from "../helpers/api";
import { jobContextOn, jobContextOnOrg } from "../helpers/context";
import { orgShardDb, orgShardNumber, shardDb } from "../helpers/shards";
import { adminToken, createEndpoint, deliveriesOf, receiverUrl, tenantWithEndpoint } from "../helpers/webhooks";
import { newTenant } from "../helpers/api";

const MINUTE = 60_000;

/**
 * `count` due deliveries (one event each) for the endpoint, due since `dueAt`, on shard `shard` (the
 * organization's current one unless given: a test putting two organizations in one sweep puts both on
 * one shard, with the anchors a shard holds for another organization's rows, as a transfer's events do).
 */
async function dueDeliveries(orgId: string, endpointId: string, count: number, dueAt: Date, shard?: number) {
  const n = shard ?? (await orgShardNumber(orgId));
  const db = shardDb(n);
  const at = dueAt.toISOString();
  const statements: D1PreparedStatement[] = [orgAnchorInsert(db, orgId, at), endpointAnchorInsert(db, { id: endpointId, orgId }, at)];
  for (let i = 0; i < count; i++) {
    const eventId = newShardId("event", n);
    statements.push(
      db
        .prepare("INSERT INTO events (id, org_id, envelope_id, type, data, created_at) VALUES (?, ?, NULL, 'envelope.completed', ?, ?)")
        .bind(eventId, orgId, JSON.stringify({ n: i }), at),
      db.prepare(
        `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, status, attempts, max_attempts, next_attempt_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'envelope.completed', 'pending', 1, 6, ?, ?, ?)`,
      ).bind(newShardId("webhookDelivery", n), orgId, endpointId, eventId, at, at, at),
    );
  }
  // events are marked dispatched so the relay does not fan them out again
  await db.batch(statements);
  await db.prepare("UPDATE events SET dispatched_at = ? WHERE org_id = ?").bind(at, orgId).run();
}

const endpoint = async (token: string, id: string) => (await call("GET", "/webhooks/endpoints", { bearer: token })).body.data.find((e: { endpoint_id: string }) => e.endpoint_id === id);

describe("webhook deliveries are shared fairly across organizations", () => {
  it("one organization's 250 failing deliveries on 25 endpoints do not starve another organization's due retry in the same round", async () => {
    const now = new Date();
    const noisy = await newTenant({ name: "Noisy Dealer Group" });
    const token = await adminToken(noisy.orgId);
    const endpoints = await Promise.all(Array.from({ length: 25 }, () => createEndpoint(token, { url: receiverUrl("fail").url })));
    // the noisy organization's backlog is older: oldest-first alone would give it every slot of the round
    // both organizations' deliveries on one shard, so one sweep of it has both to share out
    const shard = await orgShardNumber(noisy.orgId);
    for (const ep of endpoints) await dueDeliveries(noisy.orgId, ep.endpoint_id, 10, new Date(now.getTime() - 30 * MINUTE), shard);

    const quiet = await tenantWithEndpoint("ok");
    await dueDeliveries(quiet.t.orgId, quiet.ep.endpoint_id, 1, new Date(now.getTime() - MINUTE), shard);

    // one round only: the budget is spent when the first round ends (no receiver here hangs: the timeout is
    // the service's own, so a slow answer on a loaded machine is not a failed attempt)
    await sweepDeliveries(jobContextOn(shard), now, { budgetMs: 0, timeoutMs: 10_000 });

    const [retry] = await deliveriesOf(quiet.ep.endpoint_id);
    expect(retry!.status).toBe("succeeded");
    expect(retry!.attempts).toBe(2);
  });

  it("an endpoint that keeps failing is backed off to one probe a run and shows state failing", async () => {
    const { t, token, ep } = await tenantWithEndpoint("fail");
    const now = new Date();
    await dueDeliveries(t.orgId, ep.endpoint_id, 12, new Date(now.getTime() - MINUTE));
    const sweep = await jobContextOnOrg(t.orgId);

    await sweepDeliveries(sweep, now, { timeoutMs: 10_000 });
    const after = await deliveriesOf(ep.endpoint_id);
    const attempted = after.filter((d) => d.attempts > 1).length;
    // five attempts, then the endpoint is failing: one probe, and the rest wait for a run after a success
    expect(attempted).toBe(6);
    const shown = await endpoint(token, ep.endpoint_id);
    expect(shown).toMatchObject({ state: "failing", consecutive_failures: 6, paused_at: null });
    expect(shown.failing_since).toEqual(expect.any(String));

    // the next run: one probe again
    await sweepDeliveries(sweep, new Date(now.getTime() + 1_000), { timeoutMs: 10_000 });
    expect((await deliveriesOf(ep.endpoint_id)).filter((d) => d.attempts > 1).length).toBe(7);
  });

  it("an endpoint failing for three days is paused with a webhook.endpoint_paused event, sent nothing, and resumed by an admin", async () => {
    const { t, token, ep } = await tenantWithEndpoint("fail");
    const now = new Date();
    await env.DB.prepare("UPDATE webhook_endpoints SET consecutive_failures = 40, failing_since = ? WHERE id = ?")
      .bind(new Date(now.getTime() - 3 * 24 * 60 * MINUTE - MINUTE).toISOString(), ep.endpoint_id)
      .run();
    await dueDeliveries(t.orgId, ep.endpoint_id, 3, new Date(now.getTime() - MINUTE));
    const sweep = await jobContextOnOrg(t.orgId);

    await sweepDeliveries(sweep, now, { timeoutMs: 10_000 });
    const shown = await endpoint(token, ep.endpoint_id);
    expect(shown).toMatchObject({ state: "paused", paused_at: now.toISOString() });
    const events = await (await orgShardDb(t.orgId)).prepare("SELECT data FROM events WHERE org_id = ? AND type = 'webhook.endpoint_paused'").bind(t.orgId).all<{ data: string }>();
    expect(events.results.map((e) => JSON.parse(e.data))).toEqual([expect.objectContaining({ endpoint_id: ep.endpoint_id, paused_at: now.toISOString() })]);

    // paused: later runs send it nothing, its deliveries wait as pending
    const attempts = async () => (await deliveriesOf(ep.endpoint_id)).reduce((n, d) => n + d.attempts, 0);
    const before = await attempts();
    await sweepDeliveries(sweep, new Date(now.getTime() + 10 * MINUTE), { timeoutMs: 10_000 });
    expect(await attempts()).toBe(before);
    expect((await deliveriesOf(ep.endpoint_id)).filter((d) => d.status === "pending").length).toBe(3);

    const resumed = await call("PATCH", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token, body: { is_active: true } });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body.data).toMatchObject({ state: "active", consecutive_failures: 0, failing_since: null, paused_at: null });
  });
});
