import { describe, expect, it } from "vitest";
import { call } from "../../../helpers/api";
import { party, vaulted, type Party } from "../../../helpers/control";
import { bodySha256Of, controlSeqOf, makeControlKey, recordSignature, registerControlKey, type ControlKeyPair } from "../../../helpers/control-keys";
import { shardDbOf } from "../../../helpers/shards";

// docs/control.md: a Control-Signature is good for one request. It signs the record's control_seq and
// the body's hash, so it cannot be replayed, nor reused for another kind of move.

const post = (key: string, path: string, body: unknown, jws?: string) =>
  call("POST", path, { key, ...(body === undefined ? {} : { body }), headers: jws ? { "Control-Signature": jws } : {} });
const transfers = (vaultId: string) => `/partner/vault/${vaultId}/transfers`;
const answerPath = (transferId: string, verb: "accept" | "reject" | "cancel") => `/partner/vault/transfers/${transferId}/${verb}`;
const transferCount = async (vaultId: string) =>
  (await shardDbOf(vaultId).prepare("SELECT COUNT(*) AS n FROM vault_transfers WHERE vault_id = ?").bind(vaultId).first<{ n: number }>())!.n;
const historyLength = async (apiKey: string, vaultId: string) => ((await call("GET", `/partner/vault/${vaultId}/control-history`, { key: apiKey })).body.data as unknown[]).length;

async function keyed(org: Party): Promise<ControlKeyPair> {
  const key = await makeControlKey("EdDSA");
  expect((await registerControlKey(org.key, key)).status).toBe(201);
  return key;
}

const expectInvalid = (res: { status: number; body: any }, mismatch: string[]) => {
  expect([res.status, res.body.code], JSON.stringify(res.body)).toEqual([403, "control_signature_invalid"]);
  expect(res.body.details).toEqual({ mismatch });
};

describe("GET /partner/vault/{vault_id} answers control_seq", () => {
  it("is the length of the control history: every recorded step, an offer included, adds one", async () => {
    const [a, b] = await Promise.all([party("Dealer"), party("Bank")]);
    const { vaultId } = await vaulted(a);
    expect(await controlSeqOf(a.key, vaultId)).toBe(0);
    const offer = await post(a.key, transfers(vaultId), { kind: "pledge", to_org_id: b.orgId });
    expect(offer.status).toBe(201);
    expect(await controlSeqOf(a.key, vaultId)).toBe(1);
    expect(await controlSeqOf(b.key, vaultId)).toBe(1);
    expect((await post(b.key, answerPath(offer.body.data.transfer_id, "accept"), undefined)).status).toBe(200);
    expect((await post(b.key, `/partner/vault/${vaultId}/release-pledge`, undefined)).status).toBe(200);
    expect(await controlSeqOf(a.key, vaultId)).toBe(3);
    expect(await historyLength(a.key, vaultId)).toBe(3);
    // a refused step records nothing
    expect((await post(b.key, `/partner/vault/${vaultId}/release-pledge`, undefined)).status).toBe(404);
    const paid = await post(a.key, `/partner/vault/${vaultId}/paid-off`, {});
    expect(paid.body.data.control_seq).toBe(4);
    expect(await historyLength(a.key, vaultId)).toBe(4);
  });
});

describe("a Control-Signature is good for one request", () => {
  it("the pledge's signature, replayed for an assignment after the pledge was cancelled, is refused (issue 33): the pledgor keeps its right of return", async () => {
    const [a, b] = await Promise.all([party("Dealer"), party("Bank")]);
    const { vaultId } = await vaulted(a);
    const ka = await keyed(a);
    const pledge = { kind: "pledge", to_org_id: b.orgId };
    const pledgeJws = await recordSignature(ka, a.key, { vault_id: vaultId, action: "transfer", body: pledge });
    const offered = await post(a.key, transfers(vaultId), pledge, pledgeJws);
    expect(offered.status, JSON.stringify(offered.body)).toBe(201);
    const transferId = offered.body.data.transfer_id as string;
    const cancel = await recordSignature(ka, a.key, { vault_id: vaultId, action: "cancel", transfer_id: transferId });
    expect((await post(a.key, answerPath(transferId, "cancel"), undefined, cancel)).status).toBe(200);

    expectInvalid(await post(a.key, transfers(vaultId), { kind: "assignment", to_org_id: b.orgId }, pledgeJws), ["control_seq", "body_sha256"]);
    // nor the same pledge again
    expectInvalid(await post(a.key, transfers(vaultId), pledge, pledgeJws), ["control_seq"]);
    expect(await transferCount(vaultId)).toBe(1);
    const view = (await call("GET", `/partner/vault/${vaultId}`, { key: a.key })).body.data;
    expect(view).toMatchObject({ controller: { org_id: a.orgId }, pending_transfer: null, control_seq: 2 });
  });

  it("a signature that succeeded does not work again for the same action", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { vaultId } = await vaulted(a);
    const [ka, kb] = await Promise.all([keyed(a), keyed(b)]);
    const body = { kind: "assignment", to_org_id: b.orgId, reference: "Pool 7" };
    const jws = await recordSignature(ka, a.key, { vault_id: vaultId, action: "transfer", body });
    const first = await post(a.key, transfers(vaultId), body, jws);
    expect(first.status).toBe(201);
    const reject = await recordSignature(kb, b.key, { vault_id: vaultId, action: "reject", transfer_id: first.body.data.transfer_id });
    expect((await post(b.key, answerPath(first.body.data.transfer_id, "reject"), undefined, reject)).status).toBe(200);
    expectInvalid(await post(a.key, transfers(vaultId), body, jws), ["control_seq"]);
    // the rejection's own signature is spent too (the transfer is settled: 409 before any signature)
    expect((await post(b.key, answerPath(first.body.data.transfer_id, "reject"), undefined, reject)).status).toBe(409);
    expect(await transferCount(vaultId)).toBe(1);
  });

  it("signs the body: a changed kind, reference or reason is refused naming body_sha256", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { vaultId } = await vaulted(a);
    const ka = await keyed(a);
    const body = { kind: "pledge", to_org_id: b.orgId, reference: "Warehouse line 2026-11" };
    const jws = await recordSignature(ka, a.key, { vault_id: vaultId, action: "transfer", body });
    for (const tampered of [
      { ...body, kind: "assignment" },
      { ...body, reference: "Warehouse line 2026-12" },
      { kind: body.kind, to_org_id: body.to_org_id },
    ]) {
      expectInvalid(await post(a.key, transfers(vaultId), tampered, jws), ["body_sha256"]);
    }
    expect(await transferCount(vaultId)).toBe(0);
    // key order and spacing are not the body: the same members in another order pass (RFC 8785)
    const reordered = { reference: body.reference, to_org_id: body.to_org_id, kind: body.kind };
    expect((await post(a.key, transfers(vaultId), reordered, jws)).status).toBe(201);

    const { vaultId: other } = await vaulted(a);
    const paperJws = await recordSignature(ka, a.key, { vault_id: other, action: "paper_out", body: { reason: "Court filing" } });
    expectInvalid(await post(a.key, `/partner/vault/${other}/paper-out`, { reason: "Something else" }, paperJws), ["body_sha256"]);
    const paidJws = await recordSignature(ka, a.key, { vault_id: other, action: "paid_off", body: { reference: "Payoff 1" } });
    expectInvalid(await post(a.key, `/partner/vault/${other}/paid-off`, { reference: "Payoff 2" }, paidJws), ["body_sha256"]);
    expectInvalid(await post(a.key, `/partner/vault/${other}/paid-off`, {}, paidJws), ["body_sha256"]);
    expect((await call("GET", `/partner/vault/${other}`, { key: a.key })).body.data).toMatchObject({ status: "active", control_seq: 0 });
  });

  it("a signature made at an older control_seq is refused once another step was recorded", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { vaultId } = await vaulted(a);
    const ka = await keyed(a);
    const stale = await recordSignature(ka, a.key, { vault_id: vaultId, action: "paid_off", body: {} });
    // meanwhile an offer is made and rejected (b has no key: it acts on its API key)
    const offer = await post(a.key, transfers(vaultId), { kind: "assignment", to_org_id: b.orgId }, await recordSignature(ka, a.key, { vault_id: vaultId, action: "transfer", body: { kind: "assignment", to_org_id: b.orgId } }));
    expect(offer.status).toBe(201);
    expect((await post(b.key, answerPath(offer.body.data.transfer_id, "reject"), undefined)).status).toBe(200);
    expectInvalid(await post(a.key, `/partner/vault/${vaultId}/paid-off`, {}, stale), ["control_seq"]);
    const fresh = await recordSignature(ka, a.key, { vault_id: vaultId, action: "paid_off", body: {} });
    expect((await post(a.key, `/partner/vault/${vaultId}/paid-off`, {}, fresh)).status).toBe(200);
  });

  it("a refused request consumes nothing: the same valid signature then works, once", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { vaultId } = await vaulted(a);
    const ka = await keyed(a);
    const body = { kind: "assignment", to_org_id: b.orgId };
    const jws = await recordSignature(ka, a.key, { vault_id: vaultId, action: "transfer", body });
    expect((await post(a.key, transfers(vaultId), { ...body, reference: "x" }, jws)).status).toBe(403);
    expect((await post(a.key, transfers(vaultId), { kind: "assignment", to_org_id: a.orgId }, jws)).status).toBe(422);
    expect((await post(a.key, transfers(vaultId), { kind: "assignment", to_org_id: "org_unknown" }, jws)).status).toBe(422);
    expect(await controlSeqOf(a.key, vaultId)).toBe(0);
    expect((await post(a.key, transfers(vaultId), body, jws)).status).toBe(201);
    const transferId = (await call("GET", `/partner/vault/${vaultId}`, { key: a.key })).body.data.pending_transfer.transfer_id;
    const cancel = await recordSignature(ka, a.key, { vault_id: vaultId, action: "cancel", transfer_id: transferId });
    expect((await post(a.key, answerPath(transferId, "cancel"), undefined, cancel)).status).toBe(200);
    expectInvalid(await post(a.key, transfers(vaultId), body, jws), ["control_seq"]);
  });

  it("two requests carrying one signature at once: exactly one commits", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { vaultId } = await vaulted(a);
    const ka = await keyed(a);
    const body = { kind: "assignment", to_org_id: b.orgId };
    const jws = await recordSignature(ka, a.key, { vault_id: vaultId, action: "transfer", body });
    const results = await Promise.all([post(a.key, transfers(vaultId), body, jws), post(a.key, transfers(vaultId), body, jws)]);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 201).every((r) => r.status === 403 || r.status === 409)).toBe(true);
    expect(await transferCount(vaultId)).toBe(1);
    expect(await controlSeqOf(a.key, vaultId)).toBe(1);
  });

  it("tells a caller without a signature the exact payload, with the record's control_seq and how body_sha256 is made", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { vaultId } = await vaulted(a);
    await keyed(a);
    const body = { kind: "assignment", to_org_id: b.orgId };
    const res = await post(a.key, transfers(vaultId), body);
    expect([res.status, res.body.code]).toEqual([403, "control_signature_required"]);
    expect(res.body.details.payload).toEqual({ vault_id: vaultId, action: "transfer", control_seq: 0, body_sha256: await bodySha256Of(body), iat: "<now, Unix seconds>" });
    expect(res.body.error).toContain('"control_seq":0');
    expect(res.body.error).toContain("RFC 8785 canonical JSON");
  });
});
