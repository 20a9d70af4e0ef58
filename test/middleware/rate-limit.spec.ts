import { abortAllDurableObjects, env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, newKey, newTenant } from "../helpers/api";
import { limiterStub } from "../helpers/keys";

const list = (key: string) => call("GET", "/partner/envelopes", { key });

describe("per-key rate limit", () => {
  it("admits exactly rate_limit_rpm requests, then 429 with Retry-After and details.retry_after", async () => {
    const t = await newTenant({ rpm: 5 });
    const results = [];
    for (let i = 0; i < 7; i++) results.push(await list(t.key));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(results.map((r) => r.headers.get("X-RateLimit-Remaining"))).toEqual(["4", "3", "2", "1", "0", "0", "0"]);
    for (const r of results) expect(r.headers.get("X-RateLimit-Limit")).toBe("5");

    const reset = Number(results[0]!.headers.get("X-RateLimit-Reset"));
    const nowSec = Math.floor(Date.now() / 1000);
    expect(reset).toBeGreaterThan(nowSec);
    expect(reset).toBeLessThanOrEqual(nowSec + 61);
    expect(results.every((r) => r.headers.get("X-RateLimit-Reset") === String(reset))).toBe(true);

    const limited = results[5]!;
    const retryAfter = Number(limited.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body.error).toMatch(/rate limit/i);
    expect(limited.body.details.retry_after).toBe(retryAfter);
    expect(limited.headers.get("X-Request-Id")).toMatch(/^req_/);
  });

  it("admits exactly N under concurrent requests", async () => {
    const t = await newTenant({ rpm: 10 });
    const results = await Promise.all(Array.from({ length: 25 }, () => list(t.key)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    const remaining = results.filter((r) => r.status === 200).map((r) => Number(r.headers.get("X-RateLimit-Remaining")));
    expect(remaining.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("counts per key: another key of the same organization keeps its own allowance", async () => {
    const t = await newTenant({ rpm: 2 });
    const other = await newKey(t.orgId, ["envelopes:read"], 2);
    await list(t.key);
    await list(t.key);
    expect((await list(t.key)).status).toBe(429);
    const res = await list(other.key);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("1");
  });

  it("opens a new window once the minute has passed", async () => {
    const t = await newTenant({ rpm: 1 });
    expect((await list(t.key)).status).toBe(200);
    expect((await list(t.key)).status).toBe(429);
    // Move the window's start a minute into the past, as the clock would.
    await runInDurableObject(await limiterStub(t.key), (instance) => {
      (instance as unknown as { window: { start: number } }).window.start -= 60_000;
    });
    const res = await list(t.key);
    expect(res.status).toBe(200);
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("0");
  });

  it("keeps the count across an eviction of the limiter mid-window", async () => {
    const t = await newTenant({ rpm: 3 });
    for (let i = 0; i < 3; i++) expect((await list(t.key)).status).toBe(200);
    await abortAllDurableObjects();
    const res = await list(t.key);
    expect(res.status).toBe(429);
    expect(res.headers.get("X-RateLimit-Remaining")).toBe("0");
  });

  it("never admits past the limit after an eviction, with an allowance large enough that the count is not stored per request", async () => {
    const t = await newTenant({ rpm: 60 });
    for (let i = 0; i < 57; i++) expect((await list(t.key)).status).toBe(200);
    await abortAllDurableObjects();
    const after = [];
    for (let i = 0; i < 4; i++) after.push((await list(t.key)).status);
    // 57 admitted before the eviction: at most 3 more in this window, and the refusals follow the admissions
    const admitted = after.filter((s) => s === 200).length;
    expect(admitted).toBeLessThanOrEqual(3);
    expect(after).toEqual([...Array(admitted).fill(200), ...Array(4 - admitted).fill(429)]);
  });

  it("defaults to 60 requests per minute when the operator sets no limit", async () => {
    const t = await newTenant();
    const res = await call("POST", `/operator/orgs/${t.orgId}/api-keys`, {
      bearer: "test-operator-token",
      body: { scopes: ["envelopes:read"] },
    });
    expect(res.body.data.rate_limit_rpm).toBe(60);
    expect((await list(res.body.data.api_key)).headers.get("X-RateLimit-Limit")).toBe("60");
  });

  it("keeps last_used_at without a database write per request: flushed by the limiter's alarm", async () => {
    const t = await newTenant();
    await list(t.key);
    await list(t.key);
    const before = await env.DB.prepare("SELECT last_used_at FROM api_keys WHERE id = ?").bind(t.keyId).first<{ last_used_at: string | null }>();
    expect(before!.last_used_at).toBeNull();
    expect(await runDurableObjectAlarm(await limiterStub(t.key))).toBe(true);
    const after = await env.DB.prepare("SELECT last_used_at FROM api_keys WHERE id = ?").bind(t.keyId).first<{ last_used_at: string | null }>();
    expect(after!.last_used_at).not.toBeNull();
    expect(Date.now() - Date.parse(after!.last_used_at!)).toBeLessThan(60_000);
  });
});
