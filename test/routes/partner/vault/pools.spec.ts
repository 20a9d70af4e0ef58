import canonicalize from "canonicalize";
import { compactVerify, decodeProtectedHeader, importX509 } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { tendPools } from "../../../../src/services/pools/tend-pools";
import { call, operator } from "../../../helpers/api";
import { offered, party, vaulted, type Party } from "../../../helpers/control";
import { bodySha256Of, controlSignature, makeControlKey, registerControlKey } from "../../../helpers/control-keys";
import { jobContextOn } from "../../../helpers/context";
import { eventsOf, moves, moveToEnd, offeredPool, poolStub } from "../../../helpers/pools";
import { allShardDbs, shardDbOf } from "../../../helpers/shards";
import { shardOf } from "../../../../src/lib/shards";
import { env } from "cloudflare:test";

const sha256 = async (s: string) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s)))].map((b) => b.toString(16).padStart(2, "0")).join("");

/**
 * Pools of vaulted records (docs/control.md "Pools"): a lender offers many records as one assignment or
 * pledge; the receiver accepts them all at once. The sender's records are on both test shards (it moves
 * shards halfway through vaulting), the receiver on shard 2 and the pool on the sender's current shard.
 */
describe("pools of vaulted records", () => {
  let a: Party;
  let b: Party;
  let records: { vaultId: string; envelopeId: string }[];

  beforeAll(async () => {
    a = await party("Seller Bank");
    b = await party("Buyer Bank");
    await operator("PATCH", `/orgs/${a.orgId}`, { current_shard_id: 1 });
    await operator("PATCH", `/orgs/${b.orgId}`, { current_shard_id: 2 });
    records = [];
    for (let i = 0; i < 4; i++) {
      if (i === 2) expect((await operator("PATCH", `/orgs/${a.orgId}`, { current_shard_id: 2 })).status).toBe(200);
      const v = await vaulted(a);
      records.push({ vaultId: v.vaultId, envelopeId: v.e.envelope_id });
    }
    expect(new Set(records.map((r) => shardOf(r.vaultId)))).toEqual(new Set([1, 2]));
  }, 300_000);

  const controllerOf = async (key: string, vaultId: string) => (await call("GET", `/partner/vault/${vaultId}`, { key })).body.data?.controller?.org_id;

  it("offers a pool across shards whose manifest hashes to manifest_sha256, and holds its records against single transfers", async () => {
    const ids = records.slice(0, 3).map((r) => r.vaultId);
    const pool = await offeredPool(a, b, ids);
    expect(pool.pool_id).toMatch(/^vpl_\d+_/);
    expect(pool).toMatchObject({ status: "pending", count: 3, kind: "assignment", from_org_id: a.orgId, to_org_id: b.orgId });
    expect(Date.parse(pool.expires_at) - Date.parse(pool.created_at)).toBe(7 * 24 * 3600 * 1000);

    const manifest = await call("GET", `/partner/vault/pools/${pool.pool_id}/manifest`, { key: b.key });
    expect(manifest.status).toBe(200);
    expect(manifest.body.data.map((m: any) => m.vault_id)).toEqual([...ids].sort());
    expect(await sha256(canonicalize(manifest.body.data)!)).toBe(pool.manifest_sha256);

    // a pooled record refuses a single transfer; the receiver sees the record it is offered
    const single = await call("POST", `/partner/vault/${ids[0]}/transfers`, { key: a.key, body: { kind: "assignment", to_org_id: b.orgId } });
    expect(single.status).toBe(409);
    expect(single.body).toMatchObject({ code: "transfer_pending", details: { pool_id: pool.pool_id } });
    expect((await call("GET", `/partner/vault/${ids[1]}`, { key: b.key })).status).toBe(200);
    // a second pool naming a pooled record is refused whole, naming it
    const second = await call("POST", "/partner/vault/pools", { key: a.key, body: { kind: "assignment", to_org_id: b.orgId, vault_ids: [records[3]!.vaultId, ids[2]] } });
    expect(second.status).toBe(422);
    expect(second.body.details).toEqual([expect.objectContaining({ path: ["vault_ids", 1], code: "transfer_pending" })]);
    // a stranger sees no pool
    const stranger = await party("Stranger");
    expect((await call("GET", `/partner/vault/pools/${pool.pool_id}`, { key: stranger.key })).status).toBe(404);
    // the sender cannot accept, the receiver cannot cancel
    expect((await call("POST", `/partner/vault/pools/${pool.pool_id}/accept`, { key: a.key })).body.code).toBe("not_receiver");
    expect((await call("POST", `/partner/vault/pools/${pool.pool_id}/cancel`, { key: b.key })).body.code).toBe("not_sender");

    // rejected: every record is free again, still the sender's
    const rejected = await call("POST", `/partner/vault/pools/${pool.pool_id}/reject`, { key: b.key });
    expect(rejected.status).toBe(200);
    expect(rejected.body.data.status).toBe("rejected");
    for (const id of ids) expect(await controllerOf(a.key, id)).toBe(a.orgId);
    const t = await offered(a, ids[0]!, b);
    expect((await call("POST", `/partner/vault/transfers/${t.transfer_id}/cancel`, { key: a.key })).status).toBe(200);
    // answered twice: 409 to either party
    expect((await call("POST", `/partner/vault/pools/${pool.pool_id}/accept`, { key: b.key })).body).toMatchObject({ code: "pool_not_pending", details: { status: "rejected" } });
  }, 300_000);

  it("refuses a pool whole, listing every offender", async () => {
    const t = await offered(a, records[1]!.vaultId, b);
    const res = await call("POST", "/partner/vault/pools", {
      key: a.key,
      body: { kind: "assignment", to_org_id: b.orgId, vault_ids: [records[0]!.vaultId, records[1]!.vaultId, "vlt_2_00000000000000000000000000", records[0]!.vaultId] },
    });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([expect.objectContaining({ path: ["vault_ids", 3], code: "duplicate" })]);
    const res2 = await call("POST", "/partner/vault/pools", { key: a.key, body: { kind: "assignment", to_org_id: b.orgId, vault_ids: [records[0]!.vaultId, records[1]!.vaultId, "vlt_2_00000000000000000000000000"] } });
    expect(res2.status).toBe(422);
    expect(res2.body.details.map((d: any) => [d.path[1], d.code])).toEqual([
      [1, "transfer_pending"],
      [2, "not_controller"],
    ]);
    // the receiver does not control these records either
    const res3 = await call("POST", "/partner/vault/pools", { key: b.key, body: { kind: "pledge", to_org_id: a.orgId, vault_ids: [records[0]!.vaultId] } });
    expect(res3.body.details.map((d: any) => d.code)).toEqual(["not_controller"]);
    expect((await call("POST", `/partner/vault/transfers/${t.transfer_id}/cancel`, { key: a.key })).status).toBe(200);
  }, 300_000);

  it("expires a pending pool after 7 days by the minute job, freeing its records", async () => {
    const pool = await offeredPool(a, b, [records[3]!.vaultId]);
    const later = new Date(Date.now() + 8 * 24 * 3600 * 1000);
    const ran = await tendPools(jobContextOn(shardOf(pool.pool_id)), later);
    expect(ran.expired).toBe(1);
    expect((await call("GET", `/partner/vault/pools/${pool.pool_id}`, { key: a.key })).body.data.status).toBe("expired");
    const t = await offered(a, records[3]!.vaultId, b);
    expect((await call("POST", `/partner/vault/transfers/${t.transfer_id}/cancel`, { key: a.key })).status).toBe(200);
  }, 300_000);

  it("accepts a signed pool: every record moves once, one event per party, a sealed receipt carrying the receiver's signature", async () => {
    const key = await makeControlKey();
    expect((await registerControlKey(b.key, key)).status).toBe(201);
    const ids = records.map((r) => r.vaultId);
    const pool = await offeredPool(a, b, ids, "pledge");
    const accept = async (jti: string) =>
      call("POST", `/partner/vault/pools/${pool.pool_id}/accept`, {
        key: b.key,
        headers: { "Control-Signature": await controlSignature(key, { action: "pool_accept", pool_id: pool.pool_id, manifest_sha256: pool.manifest_sha256, body_sha256: await bodySha256Of({}), jti }) },
      });
    expect((await call("POST", `/partner/vault/pools/${pool.pool_id}/accept`, { key: b.key })).body.code).toBe("control_signature_required");
    const res = await accept("jti-accept-0001");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.status).toBe("accepted");
    await moveToEnd(pool.pool_id);

    const read = await call("GET", `/partner/vault/pools/${pool.pool_id}`, { key: a.key });
    expect(read.body.data.progress).toMatchObject({ moved: 4, remaining: 0 });
    for (const r of records) {
      const rec = (await call("GET", `/partner/vault/${r.vaultId}`, { key: b.key })).body.data;
      expect(rec.controller.org_id).toBe(b.orgId);
      expect(rec.pledgor.org_id).toBe(a.orgId);
      expect((await moves(r.envelopeId)).filter((m) => m.pool_id === pool.pool_id)).toHaveLength(1);
      expect(rec.compliance.compliant, JSON.stringify(rec.compliance)).toBe(true);
    }
    for (const org of [a.orgId, b.orgId]) {
      const events = await eventsOf("vault.pool_accepted", org, allShardDbs());
      expect(events.filter((e) => e.pool_id === pool.pool_id)).toHaveLength(1);
      expect(await eventsOf("vault.control_transferred", org, allShardDbs()).then((e) => e.filter((x) => records.some((r) => r.vaultId === x.vault_id)).length)).toBe(0);
    }
    const receipt = await call("GET", `/partner/vault/pools/${pool.pool_id}/receipt`, { key: b.key });
    expect(receipt.status).toBe(200);
    const header = decodeProtectedHeader(receipt.body.data.jws);
    const pem = `-----BEGIN CERTIFICATE-----\n${header.x5c![0]}\n-----END CERTIFICATE-----`;
    const verified = await compactVerify(receipt.body.data.jws, await importX509(pem, header.alg!));
    const payload = JSON.parse(new TextDecoder().decode(verified.payload));
    expect(payload).toMatchObject({ pool_id: pool.pool_id, manifest_sha256: pool.manifest_sha256, kind: "pledge", from: a.orgId, to: b.orgId, count: 4, control_signature: { kid: key.kid } });
    // the signature was good once
    expect((await accept("jti-accept-0001")).status).toBe(409);
    expect((await poolStub(pool.pool_id).state()).run).toBeNull();
    void env;
    void shardDbOf;
  }, 600_000);
});
