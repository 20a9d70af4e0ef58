import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env, OutboxMessage } from "../../../src/env";
import { createContext, onShardOf } from "../../../src/lib/context";
import { publishEvents } from "../../../src/services/webhooks/publish";
import type { SentAttempt } from "../../../src/services/webhooks/deliver";
import type { LoadedDelivery } from "../../../src/services/webhooks/repository";
import { deliverNow, IMMEDIATE_DELIVERIES } from "../../../src/services/webhooks/deliver-now";
import { fanOutClaiming } from "../../../src/services/webhooks/fan-out";
import { recordAttempts } from "../../../src/services/webhooks/record-attempts";
import { newTenant } from "../../helpers/api";
import { jobContextOf } from "../../helpers/context";
import { countingDb, type StatementTally } from "../../helpers/statement-budget";
import { adminToken, createEndpoint, deliveriesOf, insertEvent, receiverUrl, recordingQueue } from "../../helpers/webhooks";
import { orgShardDb, shardDbOf, withEveryDb } from "../../helpers/shards";


/** An organization with one endpoint per behaviour, registered in that order, and `events` envelope.sent events committed. */
async function orgWith(behaviours: string[], events: number) {
  const t = await newTenant();
  const token = await adminToken(t.orgId);
  const endpoints: string[] = [];
  for (const behaviour of behaviours) endpoints.push((await createEndpoint(token, { url: receiverUrl(behaviour).url })).endpoint_id);
  const eventIds: string[] = [];
  for (let i = 0; i < events; i++) eventIds.push(await insertEvent(t.orgId, "envelope.sent", { seq: i }));
  return { t, endpoints, eventIds };
}

const endpointHealth = (id: string) =>
  env.DB.prepare("SELECT consecutive_failures, failing_since, paused_at FROM webhook_endpoints WHERE id = ?")
    .bind(id)
    .first<{ consecutive_failures: number; failing_since: string | null; paused_at: string | null }>();

/** The organization's `webhook.endpoint_paused` events: org-level events, on its current shard. */
const pausedEvents = async (orgId: string) =>
  (await orgShardDb(orgId)).prepare("SELECT data FROM events WHERE org_id = ? AND type = 'webhook.endpoint_paused'")
    .bind(orgId)
    .all<{ data: string }>()
    .then((r) => r.results.map((e) => JSON.parse(e.data) as Record<string, unknown>));

const answered = (row: LoadedDelivery, status: number): SentAttempt => ({
  kind: "sent",
  row,
  outcome: { responseStatus: status, responseBody: status === 200 ? "ok" : "down", error: status === 200 ? null : `HTTP ${status}`, durationMs: 12 },
});

/** The deliveries of `eventIds` claimed and loaded (not sent): what the caller of the recording holds. */
async function claimedRows(eventIds: string[], now: Date) {
  const { claimed } = await fanOutClaiming(jobContextOf(eventIds[0]!), { eventIds, now, claimMax: 1000 });
  return claimed;
}

describe("first attempts sent at once are recorded in a constant number of statements", () => {
  it("records 30 attempts to three endpoints as the statement per attempt did: each delivery, its log entry, each endpoint's health", async () => {
    const { t, endpoints, eventIds } = await orgWith(["ok", "fail", "ok"], 10);
    const [healthy, failing, recovering] = endpoints as [string, string, string];
    const earlier = new Date(Date.now() - 3_600_000).toISOString();
    await env.DB.prepare("UPDATE webhook_endpoints SET consecutive_failures = 3, failing_since = ? WHERE id = ?").bind(earlier, recovering).run();
    const tally: StatementTally = { statements: 0, sql: [] };
    const { queue, sent } = recordingQueue();

    const result = await deliverNow(jobContextOf(eventIds[0]!, withEveryDb({ ...env, WEBHOOK_QUEUE: queue } as Env, (db) => countingDb(db, tally))), { eventIds });

    expect(result).toEqual({ sent: 30, queued: 0 });
    expect(sent).toEqual([]);
    // the fan-out: the undispatched events (shard) and their organizations' live endpoints (global) read
    // first, then its three with the endpoint anchors (shard); then the deliveries and their log, and at
    // most one health statement per endpoint (the statement per attempt ran 3 x 30 here)
    expect(tally.statements, tally.sql.join("\n")).toBeLessThanOrEqual(2 + 4 + 2 + endpoints.length);
    for (const id of [healthy, recovering]) {
      const rows = await deliveriesOf(id);
      expect(rows).toHaveLength(10);
      for (const row of rows) expect(row).toMatchObject({ status: "succeeded", attempts: 1, next_attempt_at: null, response_status: 200, response_body: "ok", last_error: null });
    }
    for (const row of await deliveriesOf(failing)) {
      expect(row).toMatchObject({ status: "pending", attempts: 1, response_status: 500, last_error: "HTTP 500" });
      expect(row.response_body).toHaveLength(2048);
      expect(Date.parse(row.next_attempt_at!)).toBeGreaterThan(Date.now());
    }
    const log = await (await orgShardDb(t.orgId)).prepare(
      `SELECT a.delivery_id, a.attempt, a.succeeded, a.response_status, a.next_attempt_at, d.next_attempt_at AS due
       FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.org_id = ?`,
    )
      .bind(t.orgId)
      .all<{ delivery_id: string; attempt: number; succeeded: number; response_status: number; next_attempt_at: string | null; due: string | null }>();
    expect(log.results).toHaveLength(30);
    expect(new Set(log.results.map((a) => a.delivery_id)).size).toBe(30);
    for (const a of log.results) {
      expect(a.attempt).toBe(1);
      expect(a.succeeded).toBe(a.response_status === 200 ? 1 : 0);
      expect(a.next_attempt_at).toBe(a.due);
    }
    expect(await endpointHealth(healthy)).toEqual({ consecutive_failures: 0, failing_since: null, paused_at: null });
    expect(await endpointHealth(recovering)).toEqual({ consecutive_failures: 0, failing_since: null, paused_at: null });
    const down = await endpointHealth(failing);
    expect(down).toMatchObject({ consecutive_failures: 10, paused_at: null });
    expect(down!.failing_since).not.toBeNull();
  });

  it("folds an endpoint's attempts in their order: the last success clears the run, the failures after it start a new one", async () => {
    const { endpoints, eventIds } = await orgWith(["ok", "ok"], 4);
    const [resumed, stillDown] = endpoints as [string, string];
    const earlier = new Date(Date.now() - 3_600_000).toISOString();
    await env.DB.prepare("UPDATE webhook_endpoints SET consecutive_failures = 2, failing_since = ? WHERE id IN (?, ?)").bind(earlier, resumed, stillDown).run();
    const now = new Date();
    const rows = await claimedRows(eventIds, now);
    const of = (endpoint: string) => rows.filter((r) => r.endpoint_id === endpoint);
    const [r1, r2, r3, r4] = of(resumed) as [LoadedDelivery, LoadedDelivery, LoadedDelivery, LoadedDelivery];
    const attempts = [answered(r1, 500), answered(r2, 200), answered(r3, 500), answered(r4, 503), ...of(stillDown).map((r) => answered(r, 500))];

    await recordAttempts(jobContextOf(eventIds[0]!), attempts, now);

    expect(await endpointHealth(resumed)).toEqual({ consecutive_failures: 2, failing_since: now.toISOString(), paused_at: null });
    // no success: the run goes on from where it stood
    expect(await endpointHealth(stillDown)).toEqual({ consecutive_failures: 6, failing_since: earlier, paused_at: null });
  });

  it("pauses an endpoint whose run passes the pause rule within one recording, with one webhook.endpoint_paused event; a success among them keeps it live", async () => {
    const { t, endpoints, eventIds } = await orgWith(["fail", "fail"], 16);
    const [pausing, answering] = endpoints as [string, string];
    const fourDaysAgo = new Date(Date.now() - 4 * 24 * 3_600_000).toISOString();
    // four failures in a row so far (below the back-off, so its deliveries are still sent at once), for four days
    await env.DB.prepare("UPDATE webhook_endpoints SET consecutive_failures = 4, failing_since = ? WHERE id IN (?, ?)").bind(fourDaysAgo, pausing, answering).run();
    const now = new Date();
    const rows = await claimedRows(eventIds, now);
    const toAnswering = rows.filter((r) => r.endpoint_id === answering);
    const attempts = [
      ...rows.filter((r) => r.endpoint_id === pausing).map((r) => answered(r, 500)),
      ...toAnswering.map((r, i) => answered(r, i === 0 ? 200 : 500)),
    ];

    await recordAttempts(jobContextOf(eventIds[0]!), attempts, now);

    expect(await endpointHealth(pausing)).toEqual({ consecutive_failures: 20, failing_since: fourDaysAgo, paused_at: now.toISOString() });
    expect(await endpointHealth(answering)).toEqual({ consecutive_failures: 15, failing_since: now.toISOString(), paused_at: null });
    expect(await pausedEvents(t.orgId)).toEqual([
      { endpoint_id: pausing, url: expect.stringContaining("/fail/"), failing_since: fourDaysAgo, consecutive_failures: 20, paused_at: now.toISOString() },
    ]);
  });

  it("keeps each row's guard: a delivery failed meanwhile stays failed, and one whose endpoint is gone is failed with the reason", async () => {
    const { endpoints, eventIds } = await orgWith(["ok"], 3);
    const now = new Date();
    const [raced, gone, normal] = (await claimedRows(eventIds, now)) as [LoadedDelivery, LoadedDelivery, LoadedDelivery];
    // an admin disabled the endpoint after one delivery was loaded: the disable failed that delivery
    await shardDbOf(raced.id).prepare("UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = 'endpoint disabled' WHERE id = ?").bind(raced.id).run();
    const attempts: SentAttempt[] = [answered(raced, 200), { kind: "gone", deliveryId: gone.id, reason: "endpoint deleted" }, answered(normal, 200)];

    const results = await recordAttempts(jobContextOf(eventIds[0]!), attempts, now);

    expect(results.map((r) => [r.deliveryId, r.status])).toEqual([
      [raced.id, "succeeded"],
      [normal.id, "succeeded"],
    ]);
    const byId = new Map((await deliveriesOf(endpoints[0]!)).map((d) => [d.id, d]));
    expect(byId.get(raced.id)).toMatchObject({ status: "failed", attempts: 0, last_error: "endpoint disabled" });
    expect(byId.get(gone.id)).toMatchObject({ status: "failed", attempts: 0, next_attempt_at: null, last_error: "endpoint deleted" });
    expect(byId.get(normal.id)).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it(`sends at most ${IMMEDIATE_DELIVERIES} first attempts per invocation however often it publishes, and queues the rest`, async () => {
    // 25 endpoints x 7 events: 175 new deliveries per publish, more than the cap each time
    const { t, eventIds } = await orgWith(Array.from({ length: 25 }, () => "ok"), 14);
    const { queue, sent } = recordingQueue();
    const pending: Promise<unknown>[] = [];
    const ctx = onShardOf(createContext({ ...env, WEBHOOK_QUEUE: queue } as Env, (p) => void pending.push(p), { requestId: "two-publishes", publisher: publishEvents }), eventIds[0]!);

    // as a bulk chunk does: the envelopes' events after the create, then others after the send
    ctx.publish(...eventIds.slice(0, 7));
    ctx.publish(...eventIds.slice(7));
    await Promise.all(pending);

    const attempted = await (await orgShardDb(t.orgId)).prepare("SELECT COUNT(*) AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.org_id = ?")
      .bind(t.orgId)
      .first<{ n: number }>();
    expect(attempted!.n).toBe(IMMEDIATE_DELIVERIES);
    expect(sent).toHaveLength(350 - IMMEDIATE_DELIVERIES);
    expect(sent.every((m) => m.kind === "delivery")).toBe(true);
  }, 120_000);
});
