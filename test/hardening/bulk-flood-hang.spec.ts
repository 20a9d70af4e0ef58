import { afterEach, describe, expect, it } from "vitest";
import { publishEvents } from "../../src/services/webhooks/publish";
import { ATTEMPT_LANES, attemptAll } from "../../src/services/webhooks/deliver";
import { fanOutClaiming } from "../../src/services/webhooks/fan-out";
import { newTenant } from "../helpers/api";
import { jobContextOf } from "../helpers/context";
import { adminToken, createEndpoint, deliveriesOf, insertEvent, received, receiverUrl } from "../helpers/webhooks";

/**
 * The bench's flood from a bulk send hung a request for 300 s: the batch's object sent each group's
 * 150 first attempts all at once, locally one socket each (workerd does not enforce production's six
 * connections per invocation), ~5,400 sockets in seconds. These count the receiver requests the
 * service has open at once through the runtime's own `fetch`.
 */
const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

function countOpenRequestsTo(prefix: string) {
  const seen = { open: 0, most: 0, total: 0 };
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(prefix)) return realFetch(input, init);
    seen.open += 1;
    seen.total += 1;
    seen.most = Math.max(seen.most, seen.open);
    try {
      return await realFetch(input, init);
    } finally {
      seen.open -= 1;
    }
  }) as typeof fetch;
  return seen;
}

/** An organization with `n` endpoints on fresh receiver paths of one behaviour, and `events` committed events. */
async function orgWithEvents(behaviour: string, endpoints: number, events: number) {
  const t = await newTenant();
  const token = await adminToken(t.orgId);
  const targets = [];
  for (let i = 0; i < endpoints; i++) {
    const target = receiverUrl(behaviour);
    targets.push({ ...target, endpointId: (await createEndpoint(token, { url: target.url })).endpoint_id });
  }
  const eventIds: string[] = [];
  for (let i = 0; i < events; i++) eventIds.push(await insertEvent(t.orgId, "envelope.sent", { seq: i }));
  return { t, targets, eventIds };
}

const receiverOrigin = (url: string) => new URL(url).origin;

describe("a bulk send's webhook flood keeps the service's connections bounded", () => {
  it("one bulk group's 150 first attempts (50 clients, 3 endpoints) go out six at a time, and every endpoint hears every event once", async () => {
    const { targets, eventIds } = await orgWithEvents("ok", 3, 50);
    const seen = countOpenRequestsTo(receiverOrigin(targets[0]!.url));

    await publishEvents(jobContextOf(eventIds[0]!), eventIds);

    expect(seen.total).toBe(150);
    expect(seen.most).toBeLessThanOrEqual(ATTEMPT_LANES);
    for (const target of targets) {
      const heard = (await received(target.path)).map((r) => JSON.parse(r.body).event_id as string);
      expect(heard.sort()).toEqual([...eventIds].sort());
      for (const row of await deliveriesOf(target.endpointId)) expect(row).toMatchObject({ status: "succeeded", attempts: 1 });
    }
  });

  it("a receiver that never answers keeps claimed deliveries only until the start budget: the rest are handed back due, unattempted", async () => {
    const { targets, eventIds } = await orgWithEvents("hang", 1, 20);
    const ctx = jobContextOf(eventIds[0]!);
    const now = new Date();
    const { claimed } = await fanOutClaiming(ctx, { eventIds, now, claimMax: 150 });
    expect(claimed).toHaveLength(20);

    // each wave of six times out after 600 ms: the first starts at once, the third not before 1.2 s
    const { results, released } = await attemptAll(ctx, { rows: claimed, now, timeoutMs: 600, startBudgetMs: 1_000 });

    expect(results.length).toBeGreaterThanOrEqual(ATTEMPT_LANES);
    expect(released.length).toBeGreaterThanOrEqual(20 - 2 * ATTEMPT_LANES);
    expect(results.length + released.length).toBe(20);
    const rows = await deliveriesOf(targets[0]!.endpointId);
    const handedBack = rows.filter((r) => released.includes(r.id));
    for (const row of handedBack) expect(row).toMatchObject({ status: "pending", attempts: 0, next_attempt_at: now.toISOString() });
    for (const row of rows.filter((r) => !released.includes(r.id))) expect(row).toMatchObject({ status: "pending", attempts: 1 });
    expect((await received(targets[0]!.path)).length).toBe(results.length);
  });
});
