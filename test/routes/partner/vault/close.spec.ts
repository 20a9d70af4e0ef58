import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { paperOut } from "../../../../src/services/control/paper-out";
import { call } from "../../../helpers/api";
import type { ShardDb } from "../../../../src/lib/shards";
import { orgContextOf } from "../../../helpers/context";
import { expectIndependentCopy } from "../../../helpers/copies";
import { pageTexts, pdfInfo, sha256Hex } from "../../../helpers/pdf";
import { racedDb } from "../../../helpers/raced-db";
import { party, vaulted, type Party } from "../../../helpers/control";
import { download } from "../../../helpers/vault";
import { shardDbOf } from "../../../helpers/shards";



const post = (key: string, vaultId: string, what: string, body?: unknown, headers: Record<string, string> = {}) =>
  call("POST", `/partner/vault/${vaultId}/${what}`, { key, body, headers });
const record = (vaultId: string) => shardDbOf(vaultId).prepare("SELECT * FROM vault_records WHERE id = ?").bind(vaultId).first<Record<string, any>>();
const paperKey = (r: Record<string, any>) => `vault/${r.org_id}/${r.envelope_id}/${r.id}/paper-out.pdf`;
const lastEntry = async (envelopeId: string) => {
  const row = await shardDbOf(envelopeId).prepare("SELECT action, actor_id, data FROM audit_log WHERE chain_id = ? ORDER BY seq DESC LIMIT 1").bind(envelopeId).first<Record<string, any>>();
  return { ...row!, data: JSON.parse(row!.data) };
};

/** B controls a's record through an accepted assignment. */
async function assigned(a: Party, b: Party, vaultId: string) {
  const t = await post(a.key, vaultId, "transfers", { kind: "assignment", to_org_id: b.orgId });
  expect(t.status).toBe(201);
  expect((await call("POST", `/partner/vault/transfers/${t.body.data.transfer_id}/accept`, { key: b.key })).status).toBe(200);
}

/** Every control operation on a closed record answers 409 control_closed. */
async function expectClosed(key: string, vaultId: string, to: string) {
  for (const [what, body] of [
    ["transfers", { kind: "assignment", to_org_id: to }],
    ["release-pledge", undefined],
    ["paid-off", {}],
    ["paper-out", { reason: "again" }],
  ] as const) {
    const res = await post(key, vaultId, what, body);
    expect(res.status, what).toBe(409);
    expect(res.body.code, what).toBe("control_closed");
  }
}

describe("POST /partner/vault/{vault_id}/paid-off", () => {
  it("closes control for good: 200 with the record (status paid_off), closed_at and the reference kept, on the chain; then every control operation is 409 control_closed", async () => {
    const [a, b] = await Promise.all([party("Dealer"), party("Bank")]);
    const { e, vaultId } = await vaulted(a);
    await assigned(a, b, vaultId);
    const res = await post(b.key, vaultId, "paid-off", { reference: "Payoff letter #88213" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ vault_id: vaultId, envelope_id: e.envelope_id, status: "paid_off", controller: { org_id: b.orgId }, originator: { org_id: a.orgId }, pending_transfer: null });
    const row = (await record(vaultId))!;
    expect(row).toMatchObject({ control_status: "paid_off", closed_note: "Payoff letter #88213", controller_org_id: b.orgId });
    expect(Date.parse(row.closed_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(await lastEntry(e.envelope_id)).toMatchObject({ action: "vault.paid_off", actor_id: b.keyId, data: { reference: "Payoff letter #88213", control_status: "paid_off", controller_org_id: b.orgId } });
    await expectClosed(b.key, vaultId, a.orgId);
    // the event went to the controller
    const ev = await shardDbOf(e.envelope_id).prepare("SELECT org_id FROM events WHERE envelope_id = ? AND type = 'vault.paid_off'").bind(e.envelope_id).all();
    expect(ev.results).toEqual([{ org_id: b.orgId }]);
  });

  it("takes no body at all, and an Idempotency-Key retry answers the same", async () => {
    const a = await party();
    const { vaultId } = await vaulted(a);
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const first = await post(a.key, vaultId, "paid-off", undefined, headers);
    expect(first.status).toBe(200);
    expect(first.body.data.status).toBe("paid_off");
    expect((await record(vaultId))!.closed_note).toBeNull();
    const retry = await post(a.key, vaultId, "paid-off", undefined, headers);
    expect(retry).toMatchObject({ status: 200, body: first.body });
  });

  it("answers 403 not_controller to the originator after it sold, 404 to anyone else, 409 transfer_pending while a transfer is pending", async () => {
    const [a, b, c] = await Promise.all([party(), party(), party()]);
    const { vaultId } = await vaulted(a);
    await assigned(a, b, vaultId);
    const originator = await post(a.key, vaultId, "paid-off", {});
    expect(originator.status).toBe(403);
    expect(originator.body.code).toBe("not_controller");
    expect((await post(c.key, vaultId, "paid-off", {})).status).toBe(404);
    expect((await post(b.key, "vlt_00000000000000000000000000", "paid-off", {})).status).toBe(404);
    expect((await post(b.key, vaultId, "transfers", { kind: "pledge", to_org_id: c.orgId })).status).toBe(201);
    const pending = await post(b.key, vaultId, "paid-off", {});
    expect(pending.status).toBe(409);
    expect(pending.body.code).toBe("transfer_pending");
    expect((await record(vaultId))!.control_status).toBe("active");
  });

  it("answers 422 for a reference that is not a string", async () => {
    const a = await party();
    const { vaultId } = await vaulted(a);
    expect((await post(a.key, vaultId, "paid-off", { reference: 42 })).status).toBe(422);
    expect((await record(vaultId))!.control_status).toBe("active");
  });
});

describe("POST /partner/vault/{vault_id}/paper-out", () => {
  it("closes control (paper_out, the reason kept) and answers a signed URL of a copy stamped CONVERTED TO PAPER on every page", async () => {
    const a = await party();
    const { e, vaultId, record: vr } = await vaulted(a);
    const res = await post(a.key, vaultId, "paper-out", { reason: "Court filing" });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({ vault_id: vaultId, status: "paper_out", controller: { org_id: a.orgId } });
    expect(data.paper_copy.expires_in).toBe(300);
    expect(data.paper_copy.signed_url).toMatch(new RegExp(`/v/${vaultId}/paper\\?exp=\\d+&sig=[0-9a-f]{64}$`));
    expect(data.paper_copy.filename).toMatch(/_converted-to-paper\.pdf$/);
    expect(await record(vaultId)).toMatchObject({ control_status: "paper_out", closed_note: "Court filing" });
    expect(await lastEntry(e.envelope_id)).toMatchObject({ action: "vault.paper_out", data: { reason: "Court filing", control_status: "paper_out" } });

    const file = await download(data.paper_copy.signed_url);
    expect(file.status).toBe(200);
    // a document of its own (re-serialized, sealed as a copy), never the authoritative bytes with a stamp appended
    await expectIndependentCopy(file.bytes, e.bytes, vr.document_hash, "CONVERTED TO PAPER");
    const texts = await pageTexts(file.bytes);
    expect(texts).toHaveLength(2);
    for (const text of texts) expect(text).toContain("CONVERTED TO PAPER");
    expect((await pdfInfo(file.bytes)).Custom).toMatchObject({ VaultCopy: "converted-to-paper", VaultRecordId: vaultId });
    // the authoritative copy itself is untouched
    expect(await sha256Hex(new Uint8Array(await (await env.DOCS.get(vr.authoritative_key))!.arrayBuffer()))).toBe(vr.document_hash);
    await expectClosed(a.key, vaultId, (await party()).orgId);
  });

  it("answers 422 without a reason, 404 to a third organization, 409 transfer_pending while a transfer is pending, storing no paper copy", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { vaultId, record: vr } = await vaulted(a);
    const missing = await post(a.key, vaultId, "paper-out", {});
    expect(missing.status).toBe(422);
    expect(missing.body.details[0].path).toEqual(["reason"]);
    expect((await post(a.key, vaultId, "paper-out", { reason: "   " })).status).toBe(422);
    expect((await post(b.key, vaultId, "paper-out", { reason: "x" })).status).toBe(404);
    expect((await post(a.key, vaultId, "transfers", { kind: "assignment", to_org_id: b.orgId })).status).toBe(201);
    const pending = await post(a.key, vaultId, "paper-out", { reason: "x" });
    expect(pending.status).toBe(409);
    expect(pending.body.code).toBe("transfer_pending");
    const notController = await post(b.key, vaultId, "paper-out", { reason: "x" });
    expect(notController.status).toBe(403);
    expect(notController.body.code).toBe("not_controller");
    expect(await env.DOCS.head(paperKey(vr))).toBeNull();
    expect((await record(vaultId))!.control_status).toBe("active");
  });

  it("deletes the stored paper copy when the commit does not happen (the record was paid off meanwhile)", async () => {
    const a = await party();
    const { vaultId, record: vr } = await vaulted(a);
    const onRecord = orgContextOf(a.orgId, vaultId);
    const ctx = { ...onRecord, db: racedDb(onRecord.db, () => post(a.key, vaultId, "paid-off", { reference: "raced" })) as ShardDb };
    const err = await paperOut(ctx, { vaultId, reason: "lost race", signatureHeader: undefined }).catch((e) => e);
    expect(err).toMatchObject({ status: 409, code: "control_closed" });
    expect(await record(vaultId)).toMatchObject({ control_status: "paid_off", closed_note: "raced" });
    expect(await env.DOCS.head(paperKey(vr))).toBeNull();
  });
});
