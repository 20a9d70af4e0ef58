import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { frameAncestorsFor } from "../../../../src/services/embed/frame-ancestors";
import { call, createEnvelope, newTenant } from "../../../helpers/api";
import { adminToken } from "../../../helpers/webhooks";
import { jobContextOf } from "../../../helpers/context";

const getSettings = (bearer: string, headers: Record<string, string> = {}) => call("GET", "/org/embed-settings", { bearer, headers });
const putSettings = (bearer: string, body: unknown, headers: Record<string, string> = {}) => call("PUT", "/org/embed-settings", { bearer, body, headers });

describe("GET and PUT /org/embed-settings", () => {
  it("starts with no origins (only the embed host may frame the pages) and stores the admin's list normalized", async () => {
    const t = await newTenant();
    const admin = await adminToken(t.orgId);
    const before = await getSettings(admin);
    expect(before.status).toBe(200);
    expect(before.body.data).toMatchObject({ org_id: t.orgId, frame_ancestors: [], content_security_policy: "frame-ancestors 'self'" });

    const res = await putSettings(admin, {
      frame_ancestors: ["https://Dealer.Example.com/", "https://dealer.example.com", "https://*.Partner.example:8443", "http://localhost:5173", "https://portal.example:443"],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.frame_ancestors).toEqual(["https://dealer.example.com", "https://*.partner.example:8443", "http://localhost:5173", "https://portal.example"]);
    expect(res.body.data.content_security_policy).toBe(
      "frame-ancestors 'self' https://dealer.example.com https://*.partner.example:8443 http://localhost:5173 https://portal.example",
    );
    expect((await getSettings(admin)).body.data).toEqual(res.body.data);

    const e = await createEnvelope(t.key);
    expect(await frameAncestorsFor(jobContextOf(e.envelope_id), { envelopeId: e.envelope_id })).toEqual(res.body.data.frame_ancestors);

    const cleared = await putSettings(admin, { frame_ancestors: [] });
    expect(cleared.body.data).toMatchObject({ frame_ancestors: [], content_security_policy: "frame-ancestors 'self'" });
    expect(await frameAncestorsFor(jobContextOf(e.envelope_id), { envelopeId: e.envelope_id })).toEqual([]);
  });

  it("refuses anything but a bare https origin with 422 naming its index, and changes nothing", async () => {
    const t = await newTenant();
    const admin = await adminToken(t.orgId);
    await putSettings(admin, { frame_ancestors: ["https://kept.example"] });
    const refused = [
      "http://dealer.example.com",
      "https://dealer.example.com/embed",
      "https://dealer.example.com?x=1",
      "https://dealer.example.com#top",
      "*",
      "https://*",
      "https://*.com",
      "https://a.*.example.com",
      "*.example.com",
      "dealer.example.com",
      "'self'",
      "https:",
      "https://user:pw@dealer.example.com",
      "https://dealer.example.com; script-src *",
      "https://dealer example.com",
      "javascript://dealer.example.com",
      "http://*.localhost",
      "https://dealer.example.com:99999",
      "https://dealer.example.com\\evil",
    ];
    for (const origin of refused) {
      const res = await putSettings(admin, { frame_ancestors: ["https://ok.example", origin] });
      expect(res.status, origin).toBe(422);
      expect(res.body.details, origin).toHaveLength(1);
      expect(res.body.details[0].path, origin).toEqual(["frame_ancestors", 1]);
      expect(res.body.details[0].message, origin).toContain(JSON.stringify(origin));
    }
    const tooMany = await putSettings(admin, { frame_ancestors: Array.from({ length: 21 }, (_, i) => `https://p${i}.example`) });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.details[0].path).toEqual(["frame_ancestors"]);
    expect((await putSettings(admin, { frame_ancestors: Array.from({ length: 20 }, (_, i) => `https://p${i}.example`) })).status).toBe(200);
    await putSettings(admin, { frame_ancestors: ["https://kept.example"] });
    expect((await putSettings(admin, { frame_ancestors: "https://a.example" })).status).toBe(422);
    expect((await putSettings(admin, { frame_ancestors: [], extra: true })).status).toBe(422);
    expect((await getSettings(admin)).body.data.frame_ancestors).toEqual(["https://kept.example"]);
  });

  it("is for admins only: a member or custodian gets 403, and no token 401", async () => {
    const t = await newTenant();
    for (const role of ["member", "custodian"] as const) {
      const bearer = await adminToken(t.orgId, role);
      const read = await getSettings(bearer);
      expect(read.status).toBe(403);
      expect(read.body.error).toMatch(/admin/);
      expect((await putSettings(bearer, { frame_ancestors: ["https://evil.example"] })).status).toBe(403);
    }
    expect((await call("GET", "/org/embed-settings")).status).toBe(401);
    expect((await call("PUT", "/org/embed-settings", { body: { frame_ancestors: [] } })).status).toBe(401);
  });

  it("an admin of another organization can neither read nor change it", async () => {
    const victim = await newTenant();
    const other = await newTenant();
    await putSettings(await adminToken(victim.orgId), { frame_ancestors: ["https://victim.example"] });
    const intruder = await adminToken(other.orgId);
    const read = await getSettings(intruder, { "X-Org-Id": victim.orgId });
    expect(read.status).toBe(403);
    const write = await putSettings(intruder, { frame_ancestors: ["https://evil.example"] }, { "X-Org-Id": victim.orgId });
    expect(write.status).toBe(403);
    // without X-Org-Id the intruder only changes its own organization
    expect((await putSettings(intruder, { frame_ancestors: ["https://evil.example"] })).body.data.org_id).toBe(other.orgId);
    expect((await getSettings(await adminToken(victim.orgId))).body.data.frame_ancestors).toEqual(["https://victim.example"]);
  });

  it("records the change in the organization's audit chain with the admin as actor", async () => {
    const t = await newTenant();
    const admin = await adminToken(t.orgId);
    await putSettings(admin, { frame_ancestors: ["https://Dealer.example"] });
    const entry = await env.DB.prepare("SELECT * FROM audit_log WHERE chain_id = ? ORDER BY seq DESC LIMIT 1").bind(t.orgId).first<Record<string, any>>();
    expect(entry).toMatchObject({ action: "org.embed_settings_updated", actor_type: "user" });
    expect(JSON.parse(entry!.data)).toEqual({ frame_ancestors: ["https://dealer.example"] });
  });
});
