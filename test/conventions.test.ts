import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../src/app";
import { call, createEnvelope, newTenant } from "./helpers/api";

describe("conventions every response follows", () => {
  it("puts a unique X-Request-Id on successes, errors and unknown routes", async () => {
    const t = await newTenant();
    const ok = await call("GET", "/partner/envelopes", { key: t.key });
    const missing = await SELF.fetch("http://localhost/api/v2/nope");
    const root404 = await SELF.fetch("http://localhost/definitely/not/here");
    const health = await SELF.fetch("http://localhost/health");
    const ids = [ok.headers.get("X-Request-Id"), missing.headers.get("X-Request-Id"), root404.headers.get("X-Request-Id"), health.headers.get("X-Request-Id")];
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-z]{26}$/);
    expect(new Set(ids).size).toBe(4);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "No route for GET /api/v2/nope" });
  });

  it("turns an unexpected failure into a 500 in the error shape, with X-Request-Id and no internals", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const brokenDb = {
      prepare() {
        throw new Error("D1_ERROR: database is on fire at /srv/secret/path");
      },
    } as unknown as D1Database;
    const res = await app.request(
      `http://localhost/api/v2/partner/envelopes/${e.envelope_id}`,
      { headers: { "X-API-Key": t.key } },
      { ...env, DB: brokenDb },
      { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext,
    );
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; details: { request_id: string } };
    expect(body.error).toBe("Internal server error");
    expect(body.details.request_id).toBe(res.headers.get("X-Request-Id"));
    expect(JSON.stringify(body)).not.toMatch(/fire|secret/);
  });

  it("wraps resources in { data } and lists in { data, meta }", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const one = await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key });
    expect(Object.keys(one.body)).toEqual(["data"]);
    const many = await call("GET", "/partner/envelopes", { key: t.key });
    expect(Object.keys(many.body).sort()).toEqual(["data", "meta"]);
  });

  it("answers /health without credentials", async () => {
    const res = await SELF.fetch("http://localhost/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { status: "ok" } });
  });
});
