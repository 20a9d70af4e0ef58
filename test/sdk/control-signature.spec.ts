import canonicalize from "canonicalize";
import { compactVerify, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK } from "jose";
import { describe, expect, it } from "vitest";
import { bodySha256, controlKeySignature, controlSignature, jwkKid, publicJwk } from "../../packages/sdk/src";

async function privateJwk(alg: "ES256" | "EdDSA") {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === "EdDSA" ? { crv: "Ed25519" } : {}) });
  return exportJWK(privateKey);
}

const payloadOf = async (jws: string, jwk: Awaited<ReturnType<typeof privateJwk>>, alg: string) =>
  JSON.parse(new TextDecoder().decode((await compactVerify(jws, await importJWK(publicJwk(jwk), alg))).payload)) as Record<string, unknown>;

describe("SDK: Control-Signatures from a private JWK", () => {
  it.each(["ES256", "EdDSA"] as const)("signs a record action (%s) over vault_id, action, transfer_id, control_seq, body_sha256 and iat", async (alg) => {
    const jwk = await privateJwk(alg);
    const body = { to_org_id: "org_1", kind: "assignment", reference: "Pool 7" };
    const jws = await controlSignature({ privateJwk: jwk, vaultId: "vlt_1", action: "accept", transferId: "vtr_1", controlSeq: 4, body, iat: 1_800_000_000 });
    expect(decodeProtectedHeader(jws)).toEqual({ alg, kid: await jwkKid(jwk) });
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonicalize(body)!));
    expect(await payloadOf(jws, jwk, alg)).toEqual({
      vault_id: "vlt_1",
      action: "accept",
      transfer_id: "vtr_1",
      control_seq: 4,
      body_sha256: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""),
      iat: 1_800_000_000,
    });
  });

  it("hashes no body as {} and the same body the same way whatever its key order", async () => {
    expect(await bodySha256(undefined)).toBe(await bodySha256({}));
    expect(await bodySha256({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe(await bodySha256({ a: [1, { c: 3, d: 2 }], b: 1 }));
    const jws = await controlSignature({ privateJwk: await privateJwk("ES256"), vaultId: "vlt_1", action: "release_pledge", controlSeq: 0 });
    expect(JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(jws.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)))).body_sha256).toBe(await bodySha256({}));
  });

  it("signs adding and deleting a key over action, kid, jti and iat, with a fresh jti each time", async () => {
    const jwk = await privateJwk("EdDSA");
    const a = await payloadOf(await controlKeySignature({ privateJwk: jwk, kid: "k1", action: "add_key", targetKid: "k2" }), jwk, "EdDSA");
    const b = await payloadOf(await controlKeySignature({ privateJwk: jwk, kid: "k1", action: "delete_key", targetKid: "k2" }), jwk, "EdDSA");
    expect(Object.keys(a).sort()).toEqual(["action", "iat", "jti", "kid"]);
    expect(a).toMatchObject({ action: "add_key", kid: "k2" });
    expect(b).toMatchObject({ action: "delete_key", kid: "k2" });
    expect(a.jti).not.toBe(b.jti);
  });

  it("refuses a key that is neither P-256 nor Ed25519", async () => {
    await expect(controlSignature({ privateJwk: { kty: "RSA", n: "x", e: "AQAB", d: "y" }, vaultId: "v", action: "cancel", controlSeq: 1 })).rejects.toThrow(/P-256|Ed25519/);
  });
});
