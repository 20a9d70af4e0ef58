import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sweepDeliveries } from "../../../src/jobs/sweep-deliveries";
import { fanOutEvent } from "../../../src/services/webhooks/fan-out";
import { call, newKey, newTenant } from "../../helpers/api";
import { adminToken, insertEvent, received, receiverUrl } from "../../helpers/webhooks";
import { jobContextOf } from "../../helpers/context";

describe("legacy PATCH /partner/webhook", () => {
  it("creates the organization's migrated endpoint, subscribed to * and unsigned, and delivers to it", async () => {
    const t = await newTenant();
    const target = receiverUrl("ok");
    const res = await call("PATCH", "/partner/webhook", { key: t.key, body: { url: target.url } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ url: target.url, events: ["*"], is_active: true, secret_set: false });
    expect(res.body.data.endpoint_id).toMatch(/^whep_/);
    expect(JSON.stringify(res.body)).not.toContain("whsec_");
    expect(res.headers.get("X-RateLimit-Limit")).toBeTruthy();

    const list = await call("GET", "/webhooks/endpoints", { bearer: await adminToken(t.orgId) });
    expect(list.body.data).toEqual([expect.objectContaining({ endpoint_id: res.body.data.endpoint_id, secret_set: false, events: ["*"] })]);

    const eventId = await insertEvent(t.orgId, "signer.viewed");
    await fanOutEvent(jobContextOf(eventId), { eventId });
    await sweepDeliveries(jobContextOf(eventId));
    const [req] = await received(target.path);
    expect(JSON.parse(req!.body).event_type).toBe("signer.viewed");
    expect(req!.headers["x-service-signature"]).toBeUndefined();
    expect(req!.headers["webhook-signature"]).toBeUndefined();
    expect(req!.headers["webhook-id"]).toBeTruthy();
  });

  it("writes through to the same endpoint on later calls, and null deletes it", async () => {
    const t = await newTenant();
    const first = await call("PATCH", "/partner/webhook", { key: t.key, body: { url: receiverUrl("ok").url } });
    const nextUrl = receiverUrl("ok").url;
    const second = await call("PATCH", "/partner/webhook", { key: t.key, body: { url: nextUrl } });
    expect(second.body.data).toMatchObject({ endpoint_id: first.body.data.endpoint_id, url: nextUrl });
    // The console's secret rotation signs the migrated endpoint from then on; the legacy call keeps it.
    const token = await adminToken(t.orgId);
    await call("POST", `/webhooks/endpoints/${first.body.data.endpoint_id}/rotate-secret`, { bearer: token, body: {} });
    const third = await call("PATCH", "/partner/webhook", { key: t.key, body: { url: nextUrl } });
    expect(third.body.data.secret_set).toBe(true);

    const removed = await call("PATCH", "/partner/webhook", { key: t.key, body: { url: null } });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ url: null, endpoint_id: null, events: [], is_active: false, secret_set: false });
    expect((await call("GET", "/webhooks/endpoints", { bearer: token })).body.data).toEqual([]);
    const again = await call("PATCH", "/partner/webhook", { key: t.key, body: { url: nextUrl } });
    expect(again.body.data.endpoint_id).not.toBe(first.body.data.endpoint_id);
  });

  it("keeps one migrated endpoint under concurrent first calls", async () => {
    const t = await newTenant();
    const urls = [receiverUrl("ok").url, receiverUrl("ok").url, receiverUrl("ok").url];
    const results = await Promise.all(urls.map((url) => call("PATCH", "/partner/webhook", { key: t.key, body: { url } })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    const live = await env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE org_id = ? AND legacy = 1 AND deleted_at IS NULL").bind(t.orgId).first<{ n: number }>();
    expect(live!.n).toBe(1);
  });

  it("applies the URL rules, the content type, and needs webhooks:write", async () => {
    const t = await newTenant();
    const bad = await call("PATCH", "/partner/webhook", { key: t.key, body: { url: "https://169.254.169.254/latest" } });
    expect(bad.status).toBe(422);
    expect(bad.body.details[0].path).toEqual(["url"]);
    expect((await call("PATCH", "/partner/webhook", { key: t.key, body: {} })).status).toBe(422);
    expect((await call("PATCH", "/partner/webhook", { key: t.key, raw: "{}", headers: { "Content-Type": "text/plain" } })).status).toBe(415);
    const reader = await newKey(t.orgId, ["envelopes:read"]);
    const denied = await call("PATCH", "/partner/webhook", { key: reader.key, body: { url: receiverUrl("ok").url } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("Missing required scope: webhooks:write");
    expect((await call("PATCH", "/partner/webhook", { body: { url: receiverUrl("ok").url } })).status).toBe(401);
  });
});
