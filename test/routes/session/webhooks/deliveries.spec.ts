import { verify as verifyServiceSignature } from "@octokit/webhooks-methods";
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../../src/index";
import { sweepDeliveries } from "../../../../src/jobs/sweep-deliveries";
import { fanOutEvent } from "../../../../src/services/webhooks/fan-out";
import { call, newTenant } from "../../../helpers/api";
import { adminToken, createEndpoint, insertEvent, received, receiverUrl, tenantWithEndpoint } from "../../../helpers/webhooks";
import { jobContextOf, jobContextOn } from "../../../helpers/context";
import { boundShards } from "../../../../src/lib/shards";

/** The delivery sweep as the cron runs it: once per shard. */
async function sweepEveryShard(at?: Date) {
  for (const n of boundShards(env)) await sweepDeliveries(jobContextOn(n), at);
}

/** Fans an event out on its own shard (the shard its id names). */
const fanOut = (input: { eventId: string; now?: Date }) => fanOutEvent(jobContextOf(input.eventId), input);

async function runCron(at: Date) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: at.getTime(), cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("test event", () => {
  it("sends a signed webhook.test event and reports a 2xx, without the endpoint's response body", async () => {
    const { t, token, target, ep } = await tenantWithEndpoint("ok", ["envelope.completed"]);
    const res = await call("POST", `/webhooks/endpoints/${ep.endpoint_id}/test`, { bearer: token, body: {} });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ success: true, response_code: 200, error: null });
    expect(Object.keys(res.body.data).sort()).toEqual(["delivery_id", "duration_ms", "error", "event_id", "response_code", "success"]);
    const [req] = await received(target.path);
    expect(req!.headers["x-service-event"]).toBe("webhook.test");
    expect(JSON.parse(req!.body)).toMatchObject({ event_type: "webhook.test", event_id: res.body.data.event_id, envelope_id: null, data: { endpoint_id: ep.endpoint_id } });
    expect(await verifyServiceSignature(ep.secret, req!.body, req!.headers["x-service-signature"]!)).toBe(true);
    // In the log, succeeded, and never fanned out to the organization's other endpoints.
    const other = receiverUrl("ok");
    await createEndpoint(token, { url: other.url, events: ["*"] });
    await runCron(new Date(Date.now() + 5 * 60_000));
    expect(await received(other.path)).toEqual([]);
    const log = await call("GET", `/webhooks/endpoints/${ep.endpoint_id}/deliveries`, { bearer: token });
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({ delivery_id: res.body.data.delivery_id, event_type: "webhook.test", status: "succeeded", attempts: 1 });
  });

  it("reports a failure (status, error) but never the body, and does not retry a test", async () => {
    const { t, token, target, ep } = await tenantWithEndpoint("fail");
    const res = await call("POST", `/webhooks/endpoints/${ep.endpoint_id}/test`, { bearer: token, body: {} });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ success: false, response_code: 500, error: "HTTP 500" });
    expect(JSON.stringify(res.body)).not.toContain("receiver failure");
    await sweepEveryShard(new Date(Date.now() + 24 * 3600_000));
    expect(await received(target.path)).toHaveLength(1);
    const delivery = await call("GET", `/webhooks/deliveries/${res.body.data.delivery_id}`, { bearer: token });
    expect(delivery.body.data).toMatchObject({ status: "failed", attempts: 1, next_retry_at: null });
  });

  it("refuses a test on a disabled endpoint (409) and answers 404 for an unknown one", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const ep = await createEndpoint(token, { url: receiverUrl("ok").url });
    await call("PATCH", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token, body: { is_active: false } });
    expect((await call("POST", `/webhooks/endpoints/${ep.endpoint_id}/test`, { bearer: token, body: {} })).status).toBe(409);
    expect((await call("POST", "/webhooks/endpoints/whep_nope/test", { bearer: token, body: {} })).status).toBe(404);
  });
});

describe("delivery log, single delivery and redeliver", () => {
  it("lists an endpoint's deliveries newest first, filtered by status and paginated", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const ok = await createEndpoint(token, { url: receiverUrl("flaky").url });
    const now = new Date();
    for (let i = 0; i < 5; i++) await fanOut({ eventId: await insertEvent(t.orgId, "envelope.sent", { seq: i }), now: new Date(now.getTime() + i) });
    await sweepEveryShard(new Date(now.getTime() + 10));
    const all = await call("GET", `/webhooks/endpoints/${ok.endpoint_id}/deliveries?limit=2`, { bearer: token });
    expect(all.status).toBe(200);
    expect(all.body.meta).toEqual({ page: 1, limit: 2, total: 5 });
    expect(all.body.data).toHaveLength(2);
    const page3 = await call("GET", `/webhooks/endpoints/${ok.endpoint_id}/deliveries?limit=2&page=3`, { bearer: token });
    expect(page3.body.data).toHaveLength(1);
    const failed = await call("GET", `/webhooks/endpoints/${ok.endpoint_id}/deliveries?status=pending`, { bearer: token });
    const succeeded = await call("GET", `/webhooks/endpoints/${ok.endpoint_id}/deliveries?status=succeeded`, { bearer: token });
    expect(failed.body.meta.total + succeeded.body.meta.total).toBe(5);
    expect(failed.body.meta.total).toBeGreaterThanOrEqual(2); // the flaky receiver fails every other request
    for (const d of failed.body.data) expect(d).toMatchObject({ status: "pending", attempts: 1, response_code: 500, error: "HTTP 500" });
    for (const d of failed.body.data) expect(Date.parse(d.next_retry_at)).toBeGreaterThan(now.getTime());
    expect((await call("GET", `/webhooks/endpoints/${ok.endpoint_id}/deliveries?status=bogus`, { bearer: token })).status).toBe(400);
    expect((await call("GET", `/webhooks/endpoints/${ok.endpoint_id}/deliveries?limit=101`, { bearer: token })).status).toBe(400);
  });

  it("shows one delivery with its payload and every attempt", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const ep = await createEndpoint(token, { url: receiverUrl("fail-first/1").url });
    const eventId = await insertEvent(t.orgId, "vault.stored", { path: "vault/env_x/authoritative.pdf", hash: "ab".repeat(32) });
    const now = new Date();
    const [deliveryId] = await fanOut({ eventId, now });
    await sweepEveryShard(now);
    await sweepEveryShard(new Date(now.getTime() + 2 * 60_000));
    const res = await call("GET", `/webhooks/deliveries/${deliveryId}`, { bearer: token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      delivery_id: deliveryId,
      endpoint_id: ep.endpoint_id,
      event_id: eventId,
      status: "succeeded",
      attempts: 2,
      response_code: 200,
      response_body: "ok",
      redelivery_of: null,
      payload: { event_type: "vault.stored", event_id: eventId, org_id: t.orgId, envelope_id: null, data: { path: "vault/env_x/authoritative.pdf", hash: "ab".repeat(32) } },
    });
    expect(res.body.data.attempt_log).toHaveLength(2);
    expect(res.body.data.attempt_log[0]).toMatchObject({ attempt: 1, succeeded: false, response_code: 503, response_body: "not yet", error: "HTTP 503" });
    expect(res.body.data.attempt_log[0].next_retry_at).toBeTruthy();
    expect(res.body.data.attempt_log[1]).toMatchObject({ attempt: 2, succeeded: true, response_code: 200, next_retry_at: null });
    const other = await newTenant();
    expect((await call("GET", `/webhooks/deliveries/${deliveryId}`, { bearer: await adminToken(other.orgId) })).status).toBe(404);
  });

  it("redelivers as a new row linked by redelivery_of, same event_id, sent on the next sweep", async () => {
    const { t, token, target, ep } = await tenantWithEndpoint("ok");
    const eventId = await insertEvent(t.orgId);
    const [original] = await fanOut({ eventId });
    await sweepEveryShard();
    const res = await call("POST", `/webhooks/deliveries/${original}/redeliver`, { bearer: token, body: {} });
    expect(res.status).toBe(202);
    const replay = res.body.data;
    expect(replay).toMatchObject({ event_id: eventId, endpoint_id: ep.endpoint_id, redelivery_of: original, status: "pending", attempts: 0 });
    expect(replay.delivery_id).not.toBe(original);
    expect(await received(target.path)).toHaveLength(1); // not sent by the request itself
    await runCron(new Date());
    const got = await received(target.path);
    expect(got).toHaveLength(2);
    expect(got[1]!.headers["x-service-delivery"]).toBe(replay.delivery_id);
    expect(got[1]!.headers["webhook-id"]).toBe(eventId);
    expect(got[1]!.body).toBe(got[0]!.body);
    const log = await call("GET", `/webhooks/endpoints/${ep.endpoint_id}/deliveries`, { bearer: token });
    expect(log.body.data.map((d: { delivery_id: string }) => d.delivery_id)).toEqual([replay.delivery_id, original]);
  });

  it("refuses to redeliver to a disabled or deleted endpoint (409)", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const ep = await createEndpoint(token, { url: receiverUrl("ok").url });
    const [deliveryId] = await fanOut({ eventId: await insertEvent(t.orgId) });
    await call("PATCH", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token, body: { is_active: false } });
    expect((await call("POST", `/webhooks/deliveries/${deliveryId}/redeliver`, { bearer: token, body: {} })).status).toBe(409);
    await call("DELETE", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token });
    const res = await call("POST", `/webhooks/deliveries/${deliveryId}/redeliver`, { bearer: token, body: {} });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/deleted/);
    expect((await call("POST", "/webhooks/deliveries/wdel_nope/redeliver", { bearer: token, body: {} })).status).toBe(404);
  });
});
