import { env } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { call, newTenant } from "../../../helpers/api";
import { adminToken, createEndpoint, receiverUrl } from "../../../helpers/webhooks";

const SECRET_FORMAT = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe("webhook endpoint management", () => {
  it("creates an endpoint with a whsec_ secret shown once, and never again", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const { url } = receiverUrl("ok");
    const res = await call("POST", "/webhooks/endpoints", { bearer: token, body: { url, description: "Funding", events: ["envelope.completed", "vault.*"] } });
    expect(res.status).toBe(201);
    const created = res.body.data;
    expect(created).toMatchObject({ url, description: "Funding", events: ["envelope.completed", "vault.*"], is_active: true, secret_set: true, grace_expires_at: null });
    expect(created.endpoint_id).toMatch(/^whep_[0-9a-z]{26}$/);
    expect(created.secret).toMatch(SECRET_FORMAT);
    expect(atob(created.secret.slice(6))).toHaveLength(32);
    expect(created.secret_note).toMatch(/only here/);

    const list = await call("GET", "/webhooks/endpoints", { bearer: token });
    expect(list.status).toBe(200);
    expect(list.body.meta).toEqual({ page: 1, limit: 25, total: 1 });
    expect(list.body.data[0]).toMatchObject({ endpoint_id: created.endpoint_id, secret_set: true });
    const patched = await call("PATCH", `/webhooks/endpoints/${created.endpoint_id}`, { bearer: token, body: { description: "Loan funding" } });
    for (const body of [list.body, patched.body]) {
      expect(JSON.stringify(body)).not.toContain(created.secret);
      expect(JSON.stringify(body)).not.toMatch(/"secret"|secret_note/);
    }
    const rotated = await call("POST", `/webhooks/endpoints/${created.endpoint_id}/rotate-secret`, { bearer: token, body: {} });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(SECRET_FORMAT);
    expect(rotated.body.data.secret).not.toBe(created.secret);
    expect(rotated.body.data.secret_note).toBeTruthy();
  });

  it("updates url, events, description and is_active, and refuses unknown fields", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const ep = await createEndpoint(token, { url: receiverUrl("ok").url, events: ["envelope.*"] });
    const next = receiverUrl("ok").url;
    const res = await call("PATCH", `/webhooks/endpoints/${ep.endpoint_id}`, {
      bearer: token,
      body: { url: next, events: ["signer.completed", "signer.completed", "*"], description: "All", is_active: false },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ url: next, events: ["signer.completed", "*"], description: "All", is_active: false });
    const typo = await call("PATCH", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token, body: { active: true } });
    expect(typo.status).toBe(422);
    expect(typo.body.details[0]).toMatchObject({ code: "unrecognized_keys", received: "active" });
    const empty = await call("PATCH", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token, body: {} });
    expect(empty.status).toBe(422);
    const badUrl = await call("PATCH", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token, body: { url: "https://10.0.0.7/hook" } });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body.details[0]).toMatchObject({ path: ["url"], code: "invalid_url" });
  });

  it("accepts exact types, <domain>.* and *, and refuses every other selector with 422", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const { url } = receiverUrl("ok");
    for (const events of [["envelope.completed"], ["envelope.*"], ["*"], ["vault.tamper_detected", "invoice.paid", "webhook.*"]]) {
      expect((await call("POST", "/webhooks/endpoints", { bearer: token, body: { url, events } })).status, events.join()).toBe(201);
    }
    const refused = ["*.completed", "envelope.*.x", "envelope.comp*", "env*", "envelope.", "envelope.exploded", "nosuchdomain.*", "**", "", "ENVELOPE.COMPLETED", " envelope.completed"];
    for (const selector of refused) {
      const res = await call("POST", "/webhooks/endpoints", { bearer: token, body: { url, events: ["envelope.sent", selector] } });
      expect(res.status, JSON.stringify(selector)).toBe(422);
      expect(res.body.details[0].path).toEqual(["events", 1]);
    }
    expect((await call("POST", "/webhooks/endpoints", { bearer: token, body: { url, events: [] } })).status).toBe(422);
    expect((await call("POST", "/webhooks/endpoints", { bearer: token, body: { url } })).status).toBe(422);
  });

  it("refuses the 26th endpoint with 422 and accepts one again after a delete", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await createEndpoint(token, { url: receiverUrl("ok").url })).endpoint_id);
    const res = await call("POST", "/webhooks/endpoints", { bearer: token, body: { url: receiverUrl("ok").url, events: ["*"] } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/at most 25 webhook endpoints/);
    expect(res.body.code).toBe("webhook_endpoint_limit");
    expect(res.body.details).toEqual([expect.objectContaining({ path: ["url"], expected: "at most 25 endpoints per organization" })]);
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE org_id = ?").bind(t.orgId).first<{ n: number }>();
    expect(count!.n).toBe(25);
    // No audit entry for the refused create: it failed in the same batch as the insert.
    const audits = await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action = 'webhook_endpoint.created'").bind(t.orgId).first<{ n: number }>();
    expect(audits!.n).toBe(25);
    // Another organization is not affected by this one's limit.
    const other = await newTenant();
    await createEndpoint(await adminToken(other.orgId), { url: receiverUrl("ok").url });

    expect((await call("DELETE", `/webhooks/endpoints/${ids[0]}`, { bearer: token })).status).toBe(200);
    expect((await call("POST", "/webhooks/endpoints", { bearer: token, body: { url: receiverUrl("ok").url, events: ["*"] } })).status).toBe(201);
  });

  it("soft-deletes: the endpoint leaves the list and cannot be changed, its log stays readable", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const ep = await createEndpoint(token, { url: receiverUrl("ok").url });
    const del = await call("DELETE", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token });
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ endpoint_id: ep.endpoint_id, deleted: true });
    expect((await call("GET", "/webhooks/endpoints", { bearer: token })).body.data).toEqual([]);
    expect((await call("PATCH", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token, body: { description: "x" } })).status).toBe(404);
    expect((await call("DELETE", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token })).status).toBe(404);
    const log = await call("GET", `/webhooks/endpoints/${ep.endpoint_id}/deliveries`, { bearer: token });
    expect(log.status).toBe(200);
    const row = await env.DB.prepare("SELECT deleted_at FROM webhook_endpoints WHERE id = ?").bind(ep.endpoint_id).first<{ deleted_at: string }>();
    expect(row!.deleted_at).toMatch(/Z$/);
  });

  it("records endpoint changes in the organization's audit chain, without secrets", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const ep = await createEndpoint(token, { url: receiverUrl("ok").url });
    await call("POST", `/webhooks/endpoints/${ep.endpoint_id}/rotate-secret`, { bearer: token, body: {} });
    await call("DELETE", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token });
    const { results } = await env.DB.prepare("SELECT action, actor_type, data FROM audit_log WHERE chain_id = ? AND action LIKE 'webhook_%' ORDER BY seq").bind(t.orgId).all<{ action: string; actor_type: string; data: string }>();
    expect(results.map((r) => r.action)).toEqual(["webhook_endpoint.created", "webhook_endpoint.secret_rotated", "webhook_endpoint.deleted"]);
    expect(results.every((r) => r.actor_type === "user")).toBe(true);
    expect(JSON.stringify(results)).not.toContain("whsec_");
  });

  it("is for admins of the organization only, and never shows another organization's endpoints", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const admin = await adminToken(t.orgId);
    const ep = await createEndpoint(admin, { url: receiverUrl("ok").url });
    const member = await adminToken(t.orgId, "member");
    const custodian = await adminToken(t.orgId, "custodian");
    for (const token of [member, custodian]) {
      const res = await call("GET", "/webhooks/endpoints", { bearer: token });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatch(/admin role/);
    }
    expect((await call("GET", "/webhooks/endpoints")).status).toBe(401);
    expect((await call("GET", "/webhooks/events", { key: t.key })).status).toBe(401);
    const foreignAdmin = await adminToken(other.orgId);
    expect((await call("GET", "/webhooks/endpoints", { bearer: foreignAdmin })).body.data).toEqual([]);
    for (const [method, path] of [
      ["PATCH", `/webhooks/endpoints/${ep.endpoint_id}`],
      ["DELETE", `/webhooks/endpoints/${ep.endpoint_id}`],
      ["POST", `/webhooks/endpoints/${ep.endpoint_id}/rotate-secret`],
      ["POST", `/webhooks/endpoints/${ep.endpoint_id}/test`],
      ["GET", `/webhooks/endpoints/${ep.endpoint_id}/deliveries`],
    ] as const) {
      const res = await call(method, path, { bearer: foreignAdmin, body: method === "PATCH" ? { description: "mine now" } : method === "POST" ? {} : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // X-Org-Id naming an organization the admin is not in is refused.
    expect((await call("GET", "/webhooks/endpoints", { bearer: foreignAdmin, headers: { "X-Org-Id": t.orgId } })).status).toBe(403);
  });

  it("never answers 500 to hostile create bodies, and creates nothing on refusal", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const value = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.object({ maxDepth: 1 }));
    const body = fc.record(
      { url: fc.oneof(value, fc.webUrl(), fc.constant(receiverUrl("ok").url)), events: fc.oneof(value, fc.array(fc.constantFrom("*", "envelope.*", "*.x", "vault.stored", ""), { maxLength: 3 })), description: value },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const before = await env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE org_id = ?").bind(t.orgId).first<{ n: number }>();
        const res = await call("POST", "/webhooks/endpoints", { bearer: token, body: b });
        expect([201, 422]).toContain(res.status);
        const after = await env.DB.prepare("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE org_id = ?").bind(t.orgId).first<{ n: number }>();
        if (res.status === 201) await env.DB.prepare("DELETE FROM webhook_endpoints WHERE id = ?").bind(res.body.data.endpoint_id).run();
        else expect(after!.n).toBe(before!.n);
      }),
      { numRuns: 60 },
    );
  });

  it("takes writes only as JSON", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const res = await call("POST", "/webhooks/endpoints", { bearer: token, raw: JSON.stringify({ url: receiverUrl("ok").url, events: ["*"] }), headers: { "Content-Type": "text/plain" } });
    expect(res.status).toBe(415);
  });

  it("serves the event catalog: every event type the service emits, with a description", async () => {
    const t = await newTenant();
    const res = await call("GET", "/webhooks/events", { bearer: await adminToken(t.orgId) });
    expect(res.status).toBe(200);
    const types = res.body.data.map((e: { event_type: string }) => e.event_type);
    for (const type of ["envelope.created", "envelope.sent", "envelope.completed", "envelope.expired", "envelope.voided", "signer.viewed", "signer.started", "signer.completed", "vault.stored", "vault.tamper_detected", "invoice.paid", "webhook.test"]) {
      expect(types).toContain(type);
    }
    for (const entry of res.body.data) {
      expect(entry.description.length).toBeGreaterThan(10);
      expect(entry.domain).toBe(entry.event_type.split(".")[0]);
    }
  });
});
