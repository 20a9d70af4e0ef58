import { env } from "cloudflare:test";
import { exportJWK } from "jose";
import { describe, expect, it } from "vitest";
import { verifyChain } from "../../../../src/services/audit/verify-chain";
import { ALL_SCOPES, call, newKey, newTenant } from "../../../helpers/api";
import { controlSignature, keySignature, makeControlKey, registerControlKey, type ControlKeyPair } from "../../../helpers/control-keys";

const CONTROL = [...ALL_SCOPES, "vault:control"];
const controlTenant = () => newTenant({ scopes: CONTROL });

async function orgEntries(orgId: string, action: string) {
  const { results } = await env.DB.prepare("SELECT action, actor_type, actor_id, data FROM audit_log WHERE chain_id = ? AND action = ? ORDER BY seq")
    .bind(orgId, action)
    .all<{ action: string; actor_type: string; actor_id: string | null; data: string }>();
  return results.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, any> }));
}

const listKids = async (apiKey: string) => ((await call("GET", "/partner/vault/control-keys", { key: apiKey })).body.data as { kid: string }[]).map((k) => k.kid);

const deleteKey = async (apiKey: string, kid: string, signer?: ControlKeyPair, payload?: Record<string, unknown>, opts: { iat?: number } = {}) =>
  call("DELETE", `/partner/vault/control-keys/${kid}`, {
    key: apiKey,
    headers: signer ? { "Control-Signature": await keySignature(signer, payload ?? { action: "delete_key", kid }, opts) } : {},
  });

describe("POST /partner/vault/control-keys", () => {
  for (const alg of ["ES256", "EdDSA"] as const) {
    it(`registers a first ${alg} public key unsigned, answering its RFC 7638 thumbprint, and records it on the organization's chain`, async () => {
      const t = await controlTenant();
      const key = await makeControlKey(alg);
      const res = await call("POST", "/partner/vault/control-keys", { key: t.key, body: { jwk: { ...key.jwk, kid: "my-label", use: "sig" } } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.data).toEqual({ kid: key.kid, alg, jwk: key.jwk, created_at: expect.any(String) });
      expect(res.body.data.jwk).not.toHaveProperty("kid");

      const list = await call("GET", "/partner/vault/control-keys", { key: t.key });
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([res.body.data]);

      const [entry] = await orgEntries(t.orgId, "control_key.added");
      expect(entry).toMatchObject({ actor_type: "api_key", actor_id: t.keyId, data: { kid: key.kid, alg } });
      expect(entry!.data).not.toHaveProperty("control_signature");
      expect((await verifyChain(env.DB, t.orgId)).verified).toBe(true);
    });
  }

  it("needs a Control-Signature by a key the organization already has to add a second key", async () => {
    const t = await controlTenant();
    const first = await makeControlKey("ES256");
    const second = await makeControlKey("EdDSA");
    expect((await registerControlKey(t.key, first)).status).toBe(201);

    const unsigned = await registerControlKey(t.key, second);
    expect(unsigned.status).toBe(403);
    expect(unsigned.body.code).toBe("control_signature_required");
    expect(unsigned.body.error).toContain("add_key");

    const signed = await registerControlKey(t.key, second, first);
    expect(signed.status, JSON.stringify(signed.body)).toBe(201);
    expect(signed.body.data.kid).toBe(second.kid);
    expect(await listKids(t.key)).toEqual(expect.arrayContaining([first.kid, second.kid]));

    // the chain entry keeps the JWS, so an auditor sees the organization's own key behind the addition
    const entries = await orgEntries(t.orgId, "control_key.added");
    expect(entries).toHaveLength(2);
    const jws = entries[1]!.data.control_signature.jws as string;
    expect(entries[1]!.data).toMatchObject({ kid: second.kid, alg: "EdDSA", control_signature: { kid: first.kid } });
    expect(JSON.parse(atob(jws.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")))).toMatchObject({ action: "add_key", kid: second.kid });

    // the new key signs too
    const third = await makeControlKey("ES256");
    expect((await registerControlKey(t.key, third, second)).status).toBe(201);
  });

  it("refuses signatures that are not valid for this addition (403 control_signature_invalid), adding nothing", async () => {
    const t = await controlTenant();
    const other = await controlTenant();
    const mine = await makeControlKey("EdDSA");
    const theirs = await makeControlKey("ES256");
    expect((await registerControlKey(t.key, mine)).status).toBe(201);
    expect((await registerControlKey(other.key, theirs)).status).toBe(201);
    const candidate = await makeControlKey("ES256");
    const stranger = await makeControlKey("EdDSA");
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 360;

    const attempts: Record<string, string> = {
      garbage: "not-a-jws",
      "iat 6 minutes old": await keySignature(mine, { action: "add_key", kid: candidate.kid }, { iat: sixMinutesAgo }),
      "iat 6 minutes ahead": await keySignature(mine, { action: "add_key", kid: candidate.kid }, { iat: sixMinutesAgo + 720 }),
      "a key of another organization": await keySignature(theirs, { action: "add_key", kid: candidate.kid }),
      "an unregistered key claiming our kid": await keySignature(stranger, { action: "add_key", kid: candidate.kid }, { kid: mine.kid }),
      "made for another key": await keySignature(mine, { action: "add_key", kid: stranger.kid }),
      "made for another action": await keySignature(mine, { action: "delete_key", kid: candidate.kid }),
      "made for a control action": await controlSignature(mine, { vault_id: "vlt_x", action: "transfer", to_org_id: other.orgId }),
      "with an extra claim": await keySignature(mine, { action: "add_key", kid: candidate.kid, vault_id: "vlt_x" }),
    };
    for (const [name, jws] of Object.entries(attempts)) {
      const res = await call("POST", "/partner/vault/control-keys", { key: t.key, body: { jwk: candidate.jwk }, headers: { "Control-Signature": jws } });
      expect(res.status, name).toBe(403);
      expect(res.body.code, name).toBe("control_signature_invalid");
    }
    expect(await listKids(t.key)).toEqual([mine.kid]);
    expect(await orgEntries(t.orgId, "control_key.added")).toHaveLength(1);
  });

  it("refuses a private key, other key types and curves, and malformed keys (422 invalid_control_key)", async () => {
    const t = await controlTenant();
    const privateKey = await exportJWK((await makeControlKey("ES256")).privateKey);
    const ed = await makeControlKey("EdDSA");
    const es = await makeControlKey("ES256");
    const bad: Record<string, [Record<string, unknown>, string]> = {
      "a private ES256 key": [privateKey, "d"],
      "a public key with d added": [{ ...ed.jwk, d: ed.jwk.x }, "d"],
      "an RSA key": [{ kty: "RSA", n: "sXch", e: "AQAB" }, "kty"],
      "a symmetric key": [{ kty: "oct", k: "c2VjcmV0" }, "k"],
      "P-384": [{ ...es.jwk, crv: "P-384" }, "crv"],
      secp256k1: [{ ...es.jwk, crv: "secp256k1" }, "crv"],
      Ed448: [{ ...ed.jwk, crv: "Ed448" }, "crv"],
      X25519: [{ ...ed.jwk, crv: "X25519" }, "crv"],
      "ES256 key claiming alg ES384": [{ ...es.jwk, alg: "ES384" }, "alg"],
      "an encryption key": [{ ...es.jwk, use: "enc" }, "use"],
      "EC without y": [{ kty: "EC", crv: "P-256", x: es.jwk.x }, "y"],
      "x too short": [{ ...ed.jwk, x: "AAAA" }, "x"],
      "a point not on P-256": [{ ...es.jwk, y: es.jwk.x }, "x"],
    };
    for (const [name, [jwk, member]] of Object.entries(bad)) {
      const res = await call("POST", "/partner/vault/control-keys", { key: t.key, body: { jwk } });
      expect(res.status, name).toBe(422);
      expect(res.body.code, name).toBe("invalid_control_key");
      expect(res.body.details, name).toEqual([expect.objectContaining({ path: ["jwk", member], code: "invalid_control_key" })]);
    }
    for (const body of [{}, { jwk: "key" }, { jwk: { crv: "Ed25519" } }]) {
      const res = await call("POST", "/partner/vault/control-keys", { key: t.key, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toBe("Validation failed");
    }
    expect(await listKids(t.key)).toEqual([]);
  });

  it("answers 409 for a key already registered, and keeps at most 10", async () => {
    const t = await controlTenant();
    const first = await makeControlKey("EdDSA");
    expect((await registerControlKey(t.key, first)).status).toBe(201);
    const again = await registerControlKey(t.key, first, first);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("control_key_exists");
    for (let i = 0; i < 9; i++) expect((await registerControlKey(t.key, await makeControlKey("EdDSA"), first)).status).toBe(201);
    const eleventh = await registerControlKey(t.key, await makeControlKey("EdDSA"), first);
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.code).toBe("control_key_limit");
    expect(await listKids(t.key)).toHaveLength(10);
  });

  it("adding and deleting need vault:control; reading needs vault:read; an organization sees only its own keys", async () => {
    const t = await controlTenant();
    const key = await makeControlKey("ES256");
    const reader = await newKey(t.orgId, ["vault:read"]);
    const denied = await registerControlKey(reader.key, key);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("Missing required scope: vault:control");
    expect((await registerControlKey(t.key, key)).status).toBe(201);
    expect(await listKids(reader.key)).toEqual([key.kid]);
    expect((await deleteKey(reader.key, key.kid, key)).status).toBe(403);

    const other = await controlTenant();
    expect(await listKids(other.key)).toEqual([]);
  });
});

describe("DELETE /partner/vault/control-keys/:kid", () => {
  it("needs a signature over delete_key of that kid; deleting the last key (signed) returns the organization to unsigned actions", async () => {
    const t = await controlTenant();
    const a = await makeControlKey("ES256");
    const b = await makeControlKey("EdDSA");
    expect((await registerControlKey(t.key, a)).status).toBe(201);
    expect((await registerControlKey(t.key, b, a)).status).toBe(201);

    const unsigned = await deleteKey(t.key, a.kid);
    expect(unsigned.status).toBe(403);
    expect(unsigned.body.code).toBe("control_signature_required");
    for (const [name, res] of [
      ["signed for the other kid", await deleteKey(t.key, a.kid, b, { action: "delete_key", kid: b.kid })],
      ["signed for add_key", await deleteKey(t.key, a.kid, b, { action: "add_key", kid: a.kid })],
      ["iat 6 minutes old", await deleteKey(t.key, a.kid, b, undefined, { iat: Math.floor(Date.now() / 1000) - 360 })],
    ] as const) {
      expect(res.status, name).toBe(403);
      expect(res.body.code, name).toBe("control_signature_invalid");
    }
    expect(await listKids(t.key)).toEqual(expect.arrayContaining([a.kid, b.kid]));

    const deleted = await deleteKey(t.key, a.kid, b);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body.data).toEqual({ kid: a.kid, deleted: true });
    expect(await listKids(t.key)).toEqual([b.kid]);
    // a deleted key signs nothing any more
    const byDeleted = await registerControlKey(t.key, await makeControlKey("ES256"), a);
    expect(byDeleted.status).toBe(403);
    expect(byDeleted.body.code).toBe("control_signature_invalid");

    // the last key, signed by itself
    expect((await deleteKey(t.key, b.kid, b)).status).toBe(200);
    expect(await listKids(t.key)).toEqual([]);
    expect((await registerControlKey(t.key, a)).status).toBe(201);

    const entries = await orgEntries(t.orgId, "control_key.deleted");
    expect(entries.map((e) => e.data)).toEqual([
      { kid: a.kid, alg: "ES256", control_signature: { kid: b.kid, jws: expect.any(String) } },
      { kid: b.kid, alg: "EdDSA", control_signature: { kid: b.kid, jws: expect.any(String) } },
    ]);
    expect((await verifyChain(env.DB, t.orgId)).verified).toBe(true);
  });

  it("answers 404 for an unknown kid and for another organization's key, which stays", async () => {
    const t = await controlTenant();
    const other = await controlTenant();
    const mine = await makeControlKey("EdDSA");
    const theirs = await makeControlKey("EdDSA");
    expect((await registerControlKey(t.key, mine)).status).toBe(201);
    expect((await registerControlKey(other.key, theirs)).status).toBe(201);
    expect((await deleteKey(t.key, "unknown-kid", mine)).status).toBe(404);
    const foreign = await deleteKey(t.key, theirs.kid, mine, { action: "delete_key", kid: theirs.kid });
    expect(foreign.status).toBe(404);
    expect(await listKids(other.key)).toEqual([theirs.kid]);
  });
});

describe("a key change's Control-Signature is good once (its jti)", () => {
  const addWith = (apiKey: string, key: ControlKeyPair, jws: string) =>
    call("POST", "/partner/vault/control-keys", { key: apiKey, body: { jwk: key.jwk }, headers: { "Control-Signature": jws } });

  it("refuses an add_key signature replayed after the key was deleted (403 control_signature_invalid naming jti), adding nothing", async () => {
    const t = await controlTenant();
    const a = await makeControlKey("ES256");
    const b = await makeControlKey("EdDSA");
    expect((await registerControlKey(t.key, a)).status).toBe(201);
    const addB = await keySignature(a, { action: "add_key", kid: b.kid });
    expect((await addWith(t.key, b, addB)).status).toBe(201);
    expect((await deleteKey(t.key, b.kid, a)).status).toBe(200);

    const replay = await addWith(t.key, b, addB);
    expect([replay.status, replay.body.code, replay.body.details]).toEqual([403, "control_signature_invalid", { mismatch: ["jti"] }]);
    expect(await listKids(t.key)).toEqual([a.kid]);
    expect(await orgEntries(t.orgId, "control_key.added")).toHaveLength(2);
  });

  it("refuses a delete_key signature replayed after the key was added again", async () => {
    const t = await controlTenant();
    const a = await makeControlKey("ES256");
    const b = await makeControlKey("EdDSA");
    expect((await registerControlKey(t.key, a)).status).toBe(201);
    expect((await registerControlKey(t.key, b, a)).status).toBe(201);
    const deleteB = await keySignature(a, { action: "delete_key", kid: b.kid });
    const send = () => call("DELETE", `/partner/vault/control-keys/${b.kid}`, { key: t.key, headers: { "Control-Signature": deleteB } });
    expect((await send()).status).toBe(200);
    expect((await registerControlKey(t.key, b, a)).status).toBe(201);

    const replay = await send();
    expect([replay.status, replay.body.code]).toEqual([403, "control_signature_invalid"]);
    expect(await listKids(t.key)).toEqual(expect.arrayContaining([a.kid, b.kid]));
    expect(await orgEntries(t.orgId, "control_key.deleted")).toHaveLength(1);
  });

  it("a refused key change spends nothing: the same signature works once it can", async () => {
    const t = await controlTenant();
    const a = await makeControlKey("ES256");
    const b = await makeControlKey("EdDSA");
    expect((await registerControlKey(t.key, a)).status).toBe(201);
    expect((await registerControlKey(t.key, b, a)).status).toBe(201);
    // b is registered already: 409, and its jti stays unspent
    const addB = await keySignature(a, { action: "add_key", kid: b.kid });
    expect((await addWith(t.key, b, addB)).body.code).toBe("control_key_exists");
    expect((await deleteKey(t.key, b.kid, a)).status).toBe(200);
    expect((await addWith(t.key, b, addB)).status).toBe(201);
    // now it is spent
    expect((await deleteKey(t.key, b.kid, a)).status).toBe(200);
    expect((await addWith(t.key, b, addB)).body.code).toBe("control_signature_invalid");
  });

  it("tells a caller without a signature what to sign", async () => {
    const t = await controlTenant();
    const a = await makeControlKey("ES256");
    expect((await registerControlKey(t.key, a)).status).toBe(201);
    const res = await deleteKey(t.key, a.kid);
    expect([res.status, res.body.code]).toEqual([403, "control_signature_required"]);
    expect(res.body.error).toContain('"action":"delete_key"');
    expect(res.body.error).toContain(`"kid":"${a.kid}"`);
    expect(res.body.error).toContain('"jti"');
  });
});
