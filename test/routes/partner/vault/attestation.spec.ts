import { env } from "cloudflare:test";
import { compactVerify, decodeProtectedHeader, importX509 } from "jose";
import { describe, expect, it } from "vitest";
import { call, newKey } from "../../../helpers/api";
import { party, transferred, vaulted } from "../../../helpers/control";
import { shardDbOf } from "../../../helpers/shards";




const attestation = (key: string, vaultId: string) => call("GET", `/partner/vault/${vaultId}/attestation`, { key });

/** What an auditor does offline: the certificate from the JWS's own x5c, then jose's compactVerify. */
async function verifyOffline(jws: string) {
  const header = decodeProtectedHeader(jws);
  const pem = `-----BEGIN CERTIFICATE-----\n${header.x5c![0]}\n-----END CERTIFICATE-----`;
  const key = await importX509(pem, header.alg!);
  const { payload } = await compactVerify(jws, key);
  return { header, payload: JSON.parse(new TextDecoder().decode(payload)) };
}

const chainHead = (envelopeId: string) =>
  shardDbOf(envelopeId).prepare("SELECT a.hash FROM audit_log a JOIN envelopes e ON e.id = a.chain_id AND a.seq = e.audit_seq WHERE e.id = ?").bind(envelopeId).first<{ hash: string }>();

describe("GET /partner/vault/{vault_id}/attestation", () => {
  it("is a JWS by the seal key (x5c = the seal certificate) that jose verifies offline, stating the record's control as of now", async () => {
    const [a, b, c] = await Promise.all([party("Dealer"), party("Bank"), party("Warehouse")]);
    const { e, vaultId } = await vaulted(a);
    const first = await attestation(a.key, vaultId);
    expect(first.status).toBe(200);
    const before = Math.floor(Date.now() / 1000);
    const { header, payload } = await verifyOffline(first.body.data.jws);
    // the configured seal certificate, base64 DER
    const configured = env.SEAL_CERTIFICATE!.match(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/)![1]!.replace(/\s+/g, "");
    expect(header.x5c![0]).toBe(configured);
    expect(["RS256", "ES256", "ES384"]).toContain(header.alg);
    expect(payload).toMatchObject({
      vault_id: vaultId,
      envelope_id: e.envelope_id,
      document_hash: e.hash,
      status: "active",
      controller: { org_id: a.orgId, name: "Dealer" },
      pledgor: null,
      history_length: 0,
      chain_head: (await chainHead(e.envelope_id))!.hash,
    });
    expect(Math.abs(payload.iat - before)).toBeLessThan(60);

    await transferred(a, vaultId, b, "assignment");
    await transferred(b, vaultId, c, "pledge");
    for (const p of [a, b, c]) {
      const res = await attestation(p.key, vaultId);
      expect(res.status).toBe(200);
      const now = await verifyOffline(res.body.data.jws);
      expect(now.payload).toMatchObject({
        controller: { org_id: c.orgId, name: "Warehouse" },
        pledgor: { org_id: b.orgId, name: "Bank" },
        history_length: 4,
        chain_head: (await chainHead(e.envelope_id))!.hash,
      });
      const history = await call("GET", `/partner/vault/${vaultId}/control-history`, { key: p.key });
      expect(history.body.data).toHaveLength(now.payload.history_length);
    }
  });

  it("does not verify once its payload is altered or under another key", async () => {
    const a = await party("Dealer");
    const { vaultId } = await vaulted(a);
    const { jws } = (await attestation(a.key, vaultId)).body.data as { jws: string };
    const [h, p, s] = jws.split(".");
    const forged = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(p!.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0))));
    forged.controller.org_id = "org_someone_else";
    const forgedPayload = btoa(JSON.stringify(forged)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    await expect(verifyOffline(`${h}.${forgedPayload}.${s}`)).rejects.toThrow();
    // an attestation of another record does not carry this one's signature
    const other = await vaulted(a);
    const otherJws = (await attestation(a.key, other.vaultId)).body.data.jws as string;
    await expect(verifyOffline(`${h}.${p}.${otherJws.split(".")[2]}`)).rejects.toThrow();
  });

  it("is 404 to a non-party and to an unknown record, needs vault:read, and refuses (409 audit_chain_broken) over a chain that does not verify", async () => {
    const [a, stranger] = await Promise.all([party("Dealer"), party("Stranger")]);
    const { e, vaultId } = await vaulted(a);
    expect((await attestation(stranger.key, vaultId)).status).toBe(404);
    expect((await attestation(a.key, `vlt_${"0".repeat(26)}`)).status).toBe(404);
    const noScope = await newKey(a.orgId, ["envelopes:read"]);
    expect((await attestation(noScope.key, vaultId)).status).toBe(403);

    await shardDbOf(e.envelope_id).prepare("UPDATE audit_log SET data = json_set(data, '$.hash', ?) WHERE chain_id = ? AND action = 'envelope.vault'").bind("0".repeat(64), e.envelope_id).run();
    const refused = await attestation(a.key, vaultId);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("audit_chain_broken");
  });
});
