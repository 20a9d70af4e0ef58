import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sweepDeliveries } from "../../src/jobs/sweep-deliveries";
import { deliverWebhook } from "../../src/services/webhooks/deliver";
import { fanOutEvent } from "../../src/services/webhooks/fan-out";
import { MAX_ATTEMPTS, nextRetryAt, RETRY_DELAYS_MS } from "../../src/services/webhooks/retry-schedule";
import { call } from "../helpers/api";
import { attemptsOf, deliveriesOf, insertEvent, received, tenantWithEndpoint } from "../helpers/webhooks";
import { jobContextOf, jobContextOnOrg } from "../helpers/context";

const MINUTE = 60_000;
const at = (iso: string) => Date.parse(iso);

/** One failing delivery, due at `start`. */
async function failingDelivery(behaviour = "fail") {
  const { t, token, target, ep } = await tenantWithEndpoint(behaviour);
  const start = new Date();
  const [deliveryId] = await fanOutEvent(await jobContextOnOrg(t.orgId), { eventId: await insertEvent(t.orgId), now: start });
  return { t, token, target, ep, start, deliveryId: deliveryId! };
}

describe("webhook retry schedule", () => {
  it("retries at 1 m, 5 m, 30 m, 2 h and 8 h (each +-20%), then marks the delivery failed", async () => {
    const { target, deliveryId, start, ep } = await failingDelivery();
    let now = start;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      // Just before it is due, the sweep leaves it alone.
      if (attempt > 1) {
        await sweepDeliveries(jobContextOf(deliveryId), new Date(now.getTime() - 1000));
        expect(await received(target.path)).toHaveLength(attempt - 1);
      }
      const { attempted } = await sweepDeliveries(jobContextOf(deliveryId), now);
      expect(attempted, `attempt ${attempt}`).toBe(1);
      const [row] = await deliveriesOf(ep.endpoint_id);
      expect(row!.attempts).toBe(attempt);
      if (attempt < MAX_ATTEMPTS) {
        expect(row!.status).toBe("pending");
        const delay = at(row!.next_attempt_at!) - now.getTime();
        const nominal = RETRY_DELAYS_MS[attempt - 1]!;
        expect(delay, `delay after attempt ${attempt}`).toBeGreaterThanOrEqual(nominal * 0.8);
        expect(delay, `delay after attempt ${attempt}`).toBeLessThanOrEqual(nominal * 1.2);
        now = new Date(row!.next_attempt_at!);
      } else {
        expect(row!.status).toBe("failed");
        expect(row!.next_attempt_at).toBeNull();
      }
    }
    // Nothing is due any more, however late the sweep runs.
    expect((await sweepDeliveries(jobContextOf(deliveryId), new Date(start.getTime() + 30 * 24 * 60 * MINUTE))).attempted).toBe(0);
    expect(await received(target.path)).toHaveLength(MAX_ATTEMPTS);

    const attempts = await attemptsOf(deliveryId);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(attempts.every((a) => a.succeeded === 0 && a.response_status === 500 && a.error === "HTTP 500")).toBe(true);
    expect(attempts[0]!.response_body!.length).toBe(2048);
    expect(attempts[0]!.response_body!.startsWith("receiver failure")).toBe(true);
    // Each attempt logs when the next one is due; the gaps follow the schedule.
    const gaps = attempts.slice(1).map((a, i) => at(a.attempted_at) - at(attempts[i]!.attempted_at));
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[i]! * 0.8);
      expect(gap).toBeLessThanOrEqual(RETRY_DELAYS_MS[i]! * 1.2);
    });
    expect(attempts[5]!.next_attempt_at).toBeNull();
  });

  it("spreads retries over the whole +-20% jitter band", () => {
    const now = new Date("2026-01-01T00:00:00.000Z");
    RETRY_DELAYS_MS.forEach((delay, i) => {
      expect(nextRetryAt(i + 1, MAX_ATTEMPTS, now, () => 0)!.getTime() - now.getTime()).toBe(delay * 0.8);
      expect(nextRetryAt(i + 1, MAX_ATTEMPTS, now, () => 0.5)!.getTime() - now.getTime()).toBe(delay);
      expect(nextRetryAt(i + 1, MAX_ATTEMPTS, now, () => 0.999999)!.getTime() - now.getTime()).toBeCloseTo(delay * 1.2, -2);
    });
    expect(nextRetryAt(MAX_ATTEMPTS, MAX_ATTEMPTS, now)).toBeNull();
    expect(nextRetryAt(1, 1, now)).toBeNull();
  });

  it("stops at the first 2xx: a receiver that recovers gets the event once more, and no later retry", async () => {
    const { target, deliveryId, start, ep } = await failingDelivery("fail-first/2");
    await sweepDeliveries(jobContextOf(deliveryId), start);
    let [row] = await deliveriesOf(ep.endpoint_id);
    await sweepDeliveries(jobContextOf(deliveryId), new Date(row!.next_attempt_at!));
    [row] = await deliveriesOf(ep.endpoint_id);
    await sweepDeliveries(jobContextOf(deliveryId), new Date(row!.next_attempt_at!));
    [row] = await deliveriesOf(ep.endpoint_id);
    expect(row).toMatchObject({ status: "succeeded", attempts: 3, response_status: 200, next_attempt_at: null, last_error: null });
    await sweepDeliveries(jobContextOf(deliveryId), new Date(start.getTime() + 24 * 3600_000));
    expect(await received(target.path)).toHaveLength(3);
    expect((await attemptsOf(deliveryId)).map((a) => a.succeeded)).toEqual([0, 0, 1]);
  });

  it("disabling the endpoint stops retries at once and marks in-flight deliveries failed", async () => {
    const { t, token, target, ep, start, deliveryId } = await failingDelivery();
    await sweepDeliveries(jobContextOf(deliveryId), start);
    const res = await call("PATCH", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token, body: { is_active: false } });
    expect(res.status).toBe(200);
    const [row] = await deliveriesOf(ep.endpoint_id);
    expect(row).toMatchObject({ status: "failed", next_attempt_at: null, last_error: "endpoint disabled", attempts: 1 });
    await sweepDeliveries(jobContextOf(deliveryId), new Date(start.getTime() + 24 * 3600_000));
    expect(await received(target.path)).toHaveLength(1);
    expect(await attemptsOf(deliveryId)).toHaveLength(1);
    // A disabled endpoint gets no new deliveries either.
    expect(await fanOutEvent(await jobContextOnOrg(t.orgId), { eventId: await insertEvent(t.orgId) })).toEqual([]);
  });

  it("deleting the endpoint fails its in-flight deliveries and keeps them in the log", async () => {
    const { token, ep, start, deliveryId } = await failingDelivery();
    await sweepDeliveries(jobContextOf(deliveryId), start);
    expect((await call("DELETE", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token })).status).toBe(200);
    const log = await call("GET", `/webhooks/endpoints/${ep.endpoint_id}/deliveries`, { bearer: token });
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({ status: "failed", error: "endpoint deleted", attempts: 1, next_retry_at: null });
  });

  it("fails a delivery the fan-out created after its endpoint was disabled, without sending it", async () => {
    const { target, ep, deliveryId } = await failingDelivery();
    await env.DB.prepare("UPDATE webhook_endpoints SET is_active = 0 WHERE id = ?").bind(ep.endpoint_id).run();
    expect(await deliverWebhook(jobContextOf(deliveryId), { deliveryId })).toBeNull();
    expect(await received(target.path)).toEqual([]);
    expect((await deliveriesOf(ep.endpoint_id))[0]).toMatchObject({ status: "failed", last_error: "endpoint disabled" });
  });
});
