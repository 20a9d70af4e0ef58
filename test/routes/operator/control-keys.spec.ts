import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifyChain } from "../../../src/services/audit/verify-chain";
import { ALL_SCOPES, call, newTenant, operator, OPERATOR_TOKEN } from "../../helpers/api";
import { makeControlKey, registerControlKey } from "../../helpers/control-keys";

const controlTenant = () => newTenant({ scopes: [...ALL_SCOPES, "vault:control"] });

describe("DELETE /operator/orgs/:org_id/control-keys (recovery)", () => {
  it("removes every control key, audited on the organization's chain with the operator as actor; then an unsigned add works", async () => {
    const t = await controlTenant();
    const a = await makeControlKey("ES256");
    const b = await makeControlKey("EdDSA");
    expect((await registerControlKey(t.key, a)).status).toBe(201);
    expect((await registerControlKey(t.key, b, a)).status).toBe(201);
    const lost = await makeControlKey("EdDSA");
    expect((await registerControlKey(t.key, lost)).body.code).toBe("control_signature_required");

    const res = await operator("DELETE", `/orgs/${t.orgId}/control-keys`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.org_id).toBe(t.orgId);
    expect([...res.body.data.removed].sort()).toEqual([a.kid, b.kid].sort());
    expect((await call("GET", "/partner/vault/control-keys", { key: t.key })).body.data).toEqual([]);

    const entry = await env.DB.prepare("SELECT actor_type, data FROM audit_log WHERE chain_id = ? AND action = 'control_key.recovered'")
      .bind(t.orgId)
      .first<{ actor_type: string; data: string }>();
    expect(entry?.actor_type).toBe("operator");
    expect(JSON.parse(entry!.data).removed.sort()).toEqual([a.kid, b.kid].sort());
    expect((await verifyChain(env.DB, t.orgId)).verified).toBe(true);

    // recovered: the organization registers a new key on its API key alone
    const fresh = await registerControlKey(t.key, lost);
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(201);
    expect(fresh.body.data.kid).toBe(lost.kid);
  });

  it("leaves other organizations' keys alone", async () => {
    const t = await controlTenant();
    const other = await controlTenant();
    const theirs = await makeControlKey("ES256");
    expect((await registerControlKey(other.key, theirs)).status).toBe(201);
    const res = await operator("DELETE", `/orgs/${t.orgId}/control-keys`);
    expect(res.status).toBe(200);
    expect(res.body.data.removed).toEqual([]);
    expect((await call("GET", "/partner/vault/control-keys", { key: other.key })).body.data.map((k: { kid: string }) => k.kid)).toEqual([theirs.kid]);
  });

  it("answers 404 for an unknown organization and 401 without the operator token", async () => {
    expect((await operator("DELETE", "/orgs/org_unknown/control-keys")).status).toBe(404);
    const t = await controlTenant();
    expect((await call("DELETE", `/operator/orgs/${t.orgId}/control-keys`, { key: t.key })).status).toBe(401);
    expect((await call("DELETE", `/operator/orgs/${t.orgId}/control-keys`, { bearer: `${OPERATOR_TOKEN}x` })).status).toBe(401);
  });
});
