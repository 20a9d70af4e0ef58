import { verify as verifyServiceSignature } from "@octokit/webhooks-methods";
import { env } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { deliverWebhook } from "../../../src/services/webhooks/deliver";
import { fanOutEvent } from "../../../src/services/webhooks/fan-out";
import { call, createEnvelope, newTenant } from "../../helpers/api";
import { adminToken, createEndpoint, insertEvent, received, type Received, receiverUrl, tenantWithEndpoint, waitForRequests } from "../../helpers/webhooks";
import { jobContextOf } from "../../helpers/context";

const HOUR = 3600_000;
const OTHER_SECRET = `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;

/** Both schemes, checked with the libraries a receiver would use. */
async function verifiesWith(secret: string, req: Received) {
  const standard = (() => {
    try {
      new Webhook(secret).verify(req.body, req.headers);
      return true;
    } catch {
      return false;
    }
  })();
  const service = await verifyServiceSignature(secret, req.body, req.headers["x-service-signature"]!);
  return { standard, service };
}

async function deliverOnce(orgId: string, now = new Date()) {
  const eventId = await insertEvent(orgId, "envelope.completed", { envelope_name: "Contract", amount: 1234.5, note: "ünïcødé ✓" });
  const ids = await fanOutEvent(jobContextOf(eventId), { eventId, now });
  for (const id of ids) await deliverWebhook(jobContextOf(id), { deliveryId: id, now });
  return { eventId, deliveryIds: ids };
}

describe("webhook payload, headers and signatures", () => {
  it("sends the spec's payload and headers exactly, verifiable by @octokit/webhooks-methods and standardwebhooks", async () => {
    const { t, token, target, ep } = await tenantWithEndpoint("ok");
    const { eventId, deliveryIds } = await deliverOnce(t.orgId);
    const [req] = await received(target.path);
    expect(req!.method).toBe("POST");
    expect(req!.headers).toMatchObject({
      "content-type": "application/json",
      "user-agent": "Service-Webhooks/1.0",
      "x-service-event": "envelope.completed",
      "x-service-delivery": deliveryIds[0],
      "x-service-endpoint": ep.endpoint_id,
      "webhook-id": eventId,
    });
    expect(req!.headers["x-service-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(req!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(Math.abs(Number(req!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);
    expect(req!.headers["x-service-signature-previous"]).toBeUndefined();

    const payload = JSON.parse(req!.body);
    expect(Object.keys(payload)).toEqual(["event_type", "event_id", "org_id", "envelope_id", "timestamp", "data"]);
    expect(payload).toMatchObject({ event_type: "envelope.completed", event_id: eventId, org_id: t.orgId, envelope_id: null });
    expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(payload.data.note).toBe("ünïcødé ✓");

    expect(await verifiesWith(ep.secret, req!)).toEqual({ standard: true, service: true });
    expect(await verifiesWith(OTHER_SECRET, req!)).toEqual({ standard: false, service: false });
    // A tampered body fails both.
    expect(await verifiesWith(ep.secret, { ...req!, body: req!.body.replace("1234.5", "9999") })).toEqual({ standard: false, service: false });
  });

  it("signs with both secrets for 48 h after a rotation, then only with the new one", async () => {
    const { t, token, target, ep } = await tenantWithEndpoint("ok");
    const rotated = await call("POST", `/webhooks/endpoints/${ep.endpoint_id}/rotate-secret`, { bearer: token, body: {} });
    const newSecret: string = rotated.body.data.secret;
    const grace = Date.parse(rotated.body.data.grace_expires_at);
    expect(grace - Date.now()).toBeGreaterThan(48 * HOUR - 60_000);
    expect(grace - Date.now()).toBeLessThanOrEqual(48 * HOUR);

    await deliverOnce(t.orgId, new Date(grace - HOUR));
    await deliverOnce(t.orgId, new Date(grace + 1000));
    const [during, after] = await received(target.path);

    expect(during!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(during!.headers["x-service-signature-previous"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verifiesWith(newSecret, during!)).toEqual({ standard: true, service: true });
    // A receiver still on the old secret verifies the timestamped scheme and the -Previous header.
    expect(await verifiesWith(ep.secret, during!)).toMatchObject({ standard: true });
    expect(await verifyServiceSignature(ep.secret, during!.body, during!.headers["x-service-signature-previous"]!)).toBe(true);
    expect(await verifyServiceSignature(ep.secret, during!.body, during!.headers["x-service-signature"]!)).toBe(false);

    expect(after!.headers["x-service-signature-previous"]).toBeUndefined();
    expect(after!.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(await verifiesWith(newSecret, after!)).toEqual({ standard: true, service: true });
    expect(await verifiesWith(ep.secret, after!)).toEqual({ standard: false, service: false });

    const listed = await call("GET", "/webhooks/endpoints", { bearer: token });
    expect(listed.body.data[0].grace_expires_at).toBe(rotated.body.data.grace_expires_at);
  });

  it("keeps event_id identical across endpoints, retries and replays; X-Service-Delivery identifies the delivery", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const a = receiverUrl("fail-first/1");
    const b = receiverUrl("ok");
    await createEndpoint(token, { url: a.url });
    await createEndpoint(token, { url: b.url, events: ["envelope.*"] });
    const now = new Date();
    const { eventId, deliveryIds } = await deliverOnce(t.orgId, now);
    expect(deliveryIds).toHaveLength(2);
    for (const id of deliveryIds) await deliverWebhook(jobContextOf(id), { deliveryId: id, now: new Date(now.getTime() + 2 * 60_000) }); // a's retry
    const replay = await call("POST", `/webhooks/deliveries/${deliveryIds[1]}/redeliver`, { bearer: token, body: {} });
    await deliverWebhook(jobContextOf(replay.body.data.delivery_id), { deliveryId: replay.body.data.delivery_id, now: new Date(now.getTime() + 3 * 60_000) });

    const toA = await received(a.path);
    const toB = await received(b.path);
    expect(toA).toHaveLength(2);
    expect(toB).toHaveLength(2);
    const all = [...toA, ...toB];
    expect(new Set(all.map((r) => r.headers["webhook-id"]))).toEqual(new Set([eventId]));
    expect(new Set(all.map((r) => JSON.parse(r.body).event_id))).toEqual(new Set([eventId]));
    expect(toA[0]!.headers["x-service-delivery"]).toBe(toA[1]!.headers["x-service-delivery"]);
    expect(toB[1]!.headers["x-service-delivery"]).toBe(replay.body.data.delivery_id);
    expect(toB[0]!.body).toBe(toB[1]!.body);
  });

  it("delivers a real envelope event end to end through the queue, signed", async () => {
    const { t, token, target, ep } = await tenantWithEndpoint("ok", ["envelope.created"]);
    const envelope = await createEnvelope(t.key);
    const [req] = await waitForRequests(target.path, 1);
    expect(req, "the fast path delivered within 15 s").toBeDefined();
    const payload = JSON.parse(req!.body);
    expect(payload).toMatchObject({ event_type: "envelope.created", org_id: t.orgId, envelope_id: envelope.envelope_id });
    expect(payload.data).toMatchObject({ envelope_id: envelope.envelope_id, customer_id: envelope.customer_id });
    expect(await verifiesWith(ep.secret, req!)).toEqual({ standard: true, service: true });
  });
});
