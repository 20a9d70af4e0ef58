import { describe, expect, it } from "vitest";
import { ALL_SCOPES, call, createEnvelope, envelopeBody, newKey, newTenant } from "../helpers/api";

type Probe = { method: string; path: (id: string) => string; scope: string; body?: unknown };

const PROBES: Probe[] = [
  { method: "GET", path: () => "/partner/envelopes", scope: "envelopes:read" },
  { method: "GET", path: (id) => `/partner/envelopes/${id}`, scope: "envelopes:read" },
  { method: "GET", path: (id) => `/partner/envelopes/${id}/status`, scope: "envelopes:read" },
  { method: "POST", path: () => "/partner/envelopes", scope: "envelopes:write", body: envelopeBody() },
  { method: "POST", path: (id) => `/partner/envelopes/${id}/void`, scope: "envelopes:write", body: { reason: "r" } },
  { method: "GET", path: (id) => `/partner/envelopes/${id}/compliance`, scope: "compliance:read" },
];

describe("scopes", () => {
  for (const probe of PROBES) {
    it(`${probe.method} ${probe.path(":id")} needs ${probe.scope}: 403 naming it without, success with only it`, async () => {
      const t = await newTenant();
      const e = await createEnvelope(t.key);
      const without = await newKey(t.orgId, ALL_SCOPES.filter((s) => s !== probe.scope));
      const denied = await call(probe.method, probe.path(e.envelope_id), { key: without.key, body: probe.body });
      expect(denied.status).toBe(403);
      expect(denied.body.error).toBe(`Missing required scope: ${probe.scope}`);

      const only = await newKey(t.orgId, [probe.scope]);
      const allowed = await call(probe.method, probe.path(e.envelope_id), { key: only.key, body: probe.body });
      expect(allowed.status).toBeLessThan(300);
    });
  }

  it("answers 401 stating the key is required when it is missing, malformed or unknown", async () => {
    for (const key of [undefined, "lk_short", `lk_${"0".repeat(40)}`, "Bearer something"]) {
      const res = await call("GET", "/partner/envelopes", { key });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/API key (required|is required)/);
      expect(res.headers.get("X-Request-Id")).toMatch(/^req_/);
    }
  });
});
