import { describe, expect, it } from "vitest";
import { ALL_SCOPES, call, newKey, newTenant } from "../../../helpers/api";
import { makePdf } from "../../../helpers/pdf";
import { completedEnvelope, paperEnvelope, uploadPaper } from "../../../helpers/vault";

type Probe = { name: string; scope: string; run: (key: string, envelopeId: string) => Promise<{ status: number; body: any }> };

const PROBES: Probe[] = [
  { name: "POST vault-in-signed", scope: "vault:write", run: (key, id) => call("POST", `/partner/envelopes/${id}/vault-in-signed`, { key, body: {} }) },
  { name: "GET vault/signed-url", scope: "vault:read", run: (key, id) => call("GET", `/partner/envelopes/${id}/vault/signed-url`, { key }) },
  { name: "GET vault/copy/signed-url", scope: "vault:read", run: (key, id) => call("GET", `/partner/envelopes/${id}/vault/copy/signed-url`, { key }) },
  { name: "GET vault/certificate", scope: "compliance:read", run: (key, id) => call("GET", `/partner/envelopes/${id}/vault/certificate`, { key }) },
];

describe("vault scopes", () => {
  for (const probe of PROBES) {
    it(`${probe.name} needs ${probe.scope}: 403 naming it without, served with only it`, async () => {
      const t = await newTenant();
      const e = await completedEnvelope(t.key);
      const without = await newKey(t.orgId, ALL_SCOPES.filter((s) => s !== probe.scope));
      const denied = await probe.run(without.key, e.envelope_id);
      expect(denied.status).toBe(403);
      expect(denied.body.error).toBe(`Missing required scope: ${probe.scope}`);
      await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} });
      const only = await newKey(t.orgId, [probe.scope]);
      expect((await probe.run(only.key, e.envelope_id)).status).toBe(200);
    });
  }

  it("POST vault-in-upload needs vault:write: 403 naming it without, served with only it", async () => {
    const t = await newTenant();
    const e = await paperEnvelope(t.key);
    const pdf = await makePdf();
    const without = await newKey(t.orgId, ALL_SCOPES.filter((s) => s !== "vault:write"));
    const denied = await uploadPaper(without.key, e.envelope_id, pdf);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("Missing required scope: vault:write");
    const only = await newKey(t.orgId, ["vault:write"]);
    expect((await uploadPaper(only.key, e.envelope_id, pdf)).status).toBe(200);
  });

  it("needs an API key (401) on every vault route", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    for (const probe of PROBES) expect((await probe.run("", e.envelope_id)).status).toBe(401);
    expect((await uploadPaper("", e.envelope_id, await makePdf())).status).toBe(401);
  });
});
