import { describe, expect, it } from "vitest";
import { ALL_SCOPES, call, newKey } from "../../../helpers/api";
import { offered, party, vaulted, type Party } from "../../../helpers/control";
import { makeControlKey, recordSignature, registerControlKey } from "../../../helpers/control-keys";
import { adminToken, createEndpoint, received, receiverUrl, waitForRequests } from "../../../helpers/webhooks";
import { shardDbOf } from "../../../helpers/shards";



const offer = (key: string, vaultId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call("POST", `/partner/vault/${vaultId}/transfers`, { key, body, headers });
const answer = (key: string, transferId: string, verb: "accept" | "reject" | "cancel", headers: Record<string, string> = {}) =>
  call("POST", `/partner/vault/transfers/${transferId}/${verb}`, { key, headers });
const record = (vaultId: string) => shardDbOf(vaultId).prepare("SELECT * FROM vault_records WHERE id = ?").bind(vaultId).first<Record<string, any>>();
const transferRow = (id: string) => shardDbOf(id).prepare("SELECT * FROM vault_transfers WHERE id = ?").bind(id).first<Record<string, any>>();
const chain = async (envelopeId: string) =>
  (await shardDbOf(envelopeId).prepare("SELECT seq, action, actor_type, actor_id, data FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(envelopeId).all<Record<string, any>>()).results.map(
    (r) => ({ ...r, data: JSON.parse(r.data) }) as { seq: number; action: string; actor_type: string; actor_id: string | null; data: Record<string, any> },
  );
const certificateVersions = async (envelopeId: string) =>
  (await shardDbOf(envelopeId).prepare("SELECT MAX(version) AS v FROM vault_certificates WHERE envelope_id = ?").bind(envelopeId).first<{ v: number }>())!.v;


describe("POST /partner/vault/{vault_id}/transfers", () => {
  it("offers a transfer: 201 with the pending transfer (vtr_ id, 7-day expiry), recorded on the chain with its kind and reference", async () => {
    const [a, b] = await Promise.all([party("Dealer"), party("Bank")]);
    const { e, vaultId } = await vaulted(a);
    const before = Date.now();
    const res = await offer(a.key, vaultId, { kind: "assignment", to_org_id: b.orgId, reference: "Pool 2026-11 / 1042" });
    expect(res.status).toBe(201);
    const t = res.body.data;
    expect(Object.keys(t).sort()).toEqual(["created_at", "expires_at", "from_org_id", "kind", "pool_id", "reference", "status", "to_org_id", "transfer_id", "vault_id"]);
    expect(t.pool_id).toBeNull();
    expect(t).toMatchObject({ vault_id: vaultId, kind: "assignment", from_org_id: a.orgId, to_org_id: b.orgId, status: "pending", reference: "Pool 2026-11 / 1042" });
    expect(t.transfer_id).toMatch(/^vtr_(?:[1-9][0-9]{0,3}_)?[0-9a-z]{26}$/);
    expect(Date.parse(t.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(t.expires_at) - Date.parse(t.created_at)).toBe(7 * 24 * 3600 * 1000);
    // control does not move on an offer
    expect(await record(vaultId)).toMatchObject({ controller_org_id: a.orgId, pledgor_org_id: null, transfer_count: 0 });
    const entry = (await chain(e.envelope_id)).at(-1)!;
    expect(entry.action).toBe("vault.transfer_requested");
    expect(entry.actor_id).toBe(a.keyId);
    expect(entry.data).toMatchObject({ transfer_id: t.transfer_id, kind: "assignment", reference: "Pool 2026-11 / 1042", from_org_id: a.orgId, to_org_id: b.orgId, acting_org_id: a.orgId, actor_key_id: a.keyId });
  });

  it("answers 404 to an organization that is not a party, and for an unknown record", async () => {
    const [a, b, c] = await Promise.all([party(), party(), party()]);
    const { vaultId } = await vaulted(a);
    const res = await offer(c.key, vaultId, { kind: "assignment", to_org_id: b.orgId });
    expect(res.status).toBe(404);
    expect((await offer(a.key, "vlt_00000000000000000000000000", { kind: "assignment", to_org_id: b.orgId })).status).toBe(404);
    expect(await shardDbOf(vaultId).prepare("SELECT COUNT(*) AS n FROM vault_transfers WHERE vault_id = ?").bind(vaultId).first("n")).toBe(0);
  });

  it("answers 403 not_controller to a party that no longer controls (the originator after it sold)", async () => {
    const [a, b, c] = await Promise.all([party("Dealer"), party("Bank"), party("Warehouse")]);
    const { vaultId } = await vaulted(a);
    const t = await offered(a, vaultId, b);
    expect((await answer(b.key, t.transfer_id, "accept")).status).toBe(200);
    const res = await offer(a.key, vaultId, { kind: "assignment", to_org_id: c.orgId });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("not_controller");
    // the new controller may
    expect((await offer(b.key, vaultId, { kind: "pledge", to_org_id: c.orgId })).status).toBe(201);
  });

  it("answers 422 for a to_org_id that is unknown or the caller, and for a bad kind", async () => {
    const a = await party();
    const { vaultId } = await vaulted(a);
    const unknown = await offer(a.key, vaultId, { kind: "assignment", to_org_id: "org_00000000000000000000000000" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatch(/no organization/);
    const self = await offer(a.key, vaultId, { kind: "pledge", to_org_id: a.orgId });
    expect(self.status).toBe(422);
    expect(self.body.error).toMatch(/caller/);
    // details on a 422 is always the issue array, whoever refused
    for (const res of [unknown, self]) expect(res.body.details).toEqual([expect.objectContaining({ code: "invalid_value", path: ["to_org_id"], received: expect.any(String) })]);
    const bad = await offer(a.key, vaultId, { kind: "sale", to_org_id: a.orgId });
    expect(bad.status).toBe(422);
    expect(bad.body.details[0].path).toEqual(["kind"]);
    expect(await shardDbOf(vaultId).prepare("SELECT COUNT(*) AS n FROM vault_transfers WHERE vault_id = ?").bind(vaultId).first("n")).toBe(0);
  });

  it("answers 409 transfer_pending while a transfer is pending", async () => {
    const [a, b, c] = await Promise.all([party(), party(), party()]);
    const { vaultId } = await vaulted(a);
    const first = await offered(a, vaultId, b);
    const res = await offer(a.key, vaultId, { kind: "assignment", to_org_id: c.orgId });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "transfer_pending", details: { transfer_id: first.transfer_id } });
  });

  it("gives one of two racing offers 201 and the other 409 transfer_pending; one transfer is pending", async () => {
    const [a, b, c] = await Promise.all([party(), party(), party()]);
    const { vaultId } = await vaulted(a);
    const results = await Promise.all([b, c].map((to) => offer(a.key, vaultId, { kind: "assignment", to_org_id: to.orgId })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)!.body.code).toBe("transfer_pending");
    const { results: rows } = await shardDbOf(vaultId).prepare("SELECT id, status FROM vault_transfers WHERE vault_id = ?").bind(vaultId).all();
    expect(rows).toEqual([{ id: results.find((r) => r.status === 201)!.body.data.transfer_id, status: "pending" }]);
  });

  it("answers 409 already_pledged to a pledge of a record held under a pledge", async () => {
    const [a, b, c] = await Promise.all([party(), party(), party()]);
    const { vaultId } = await vaulted(a);
    const t = await offered(a, vaultId, b, "pledge");
    expect((await answer(b.key, t.transfer_id, "accept")).status).toBe(200);
    const res = await offer(b.key, vaultId, { kind: "pledge", to_org_id: c.orgId });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "already_pledged", details: { pledgor_org_id: a.orgId } });
  });

  it("needs the vault:control scope", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { vaultId } = await vaulted(a);
    const reader = await newKey(a.orgId, ALL_SCOPES);
    const res = await offer(reader.key, vaultId, { kind: "assignment", to_org_id: b.orgId });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("Missing required scope: vault:control");
  });

  it("answers an Idempotency-Key retry with the same transfer, creating one", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { vaultId } = await vaulted(a);
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const first = await offer(a.key, vaultId, { kind: "assignment", to_org_id: b.orgId }, headers);
    const again = await offer(a.key, vaultId, { kind: "assignment", to_org_id: b.orgId }, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.data.transfer_id).toBe(first.body.data.transfer_id);
    expect(await shardDbOf(vaultId).prepare("SELECT COUNT(*) AS n FROM vault_transfers WHERE vault_id = ?").bind(vaultId).first("n")).toBe(1);
  });
});

describe("POST /partner/vault/transfers/{transfer_id}/accept|reject|cancel", () => {
  it("accepting an assignment makes the receiver the controller: chain entry by the receiver, a new certificate version, transfer_count 1", async () => {
    const [a, b] = await Promise.all([party("Dealer"), party("Bank")]);
    const { e, vaultId } = await vaulted(a);
    const t = await offered(a, vaultId, b);
    const versions = await certificateVersions(e.envelope_id);
    const res = await answer(b.key, t.transfer_id, "accept");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...t, status: "accepted" });
    expect(await record(vaultId)).toMatchObject({ controller_org_id: b.orgId, pledgor_org_id: null, transfer_count: 1, control_status: "active" });
    expect((await transferRow(t.transfer_id))!.settled_at).not.toBeNull();
    expect(await certificateVersions(e.envelope_id)).toBe(versions + 1);
    const entry = (await chain(e.envelope_id)).at(-1)!;
    expect(entry).toMatchObject({ action: "vault.control_transferred", actor_id: b.keyId });
    expect(entry.data).toMatchObject({ transfer_id: t.transfer_id, from_org_id: a.orgId, to_org_id: b.orgId, controller_org_id: b.orgId, acting_org_id: b.orgId });
  });

  it("accepting a pledge makes the receiver the controller and the sender the pledgor; release-pledge returns control", async () => {
    const [a, b] = await Promise.all([party("Lender"), party("Warehouse")]);
    const { vaultId } = await vaulted(a);
    const t = await offered(a, vaultId, b, "pledge");
    expect((await answer(b.key, t.transfer_id, "accept")).status).toBe(200);
    expect(await record(vaultId)).toMatchObject({ controller_org_id: b.orgId, pledgor_org_id: a.orgId, transfer_count: 1 });

    const notController = await call("POST", `/partner/vault/${vaultId}/release-pledge`, { key: a.key });
    expect(notController.status).toBe(403);
    expect(notController.body.code).toBe("not_controller");
    const released = await call("POST", `/partner/vault/${vaultId}/release-pledge`, { key: b.key });
    expect(released.status).toBe(200);
    expect(released.body.data).toMatchObject({ vault_id: vaultId, status: "active", controller: { org_id: a.orgId }, pledgor: null });
    expect(await record(vaultId)).toMatchObject({ controller_org_id: a.orgId, pledgor_org_id: null, transfer_count: 1 });
    const again = await call("POST", `/partner/vault/${vaultId}/release-pledge`, { key: a.key });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("no_pledge");
  });

  it("release-pledge: 404 to a third organization, 409 transfer_pending while the pledgee's offer is pending", async () => {
    const [a, b, c] = await Promise.all([party(), party(), party()]);
    const { vaultId } = await vaulted(a);
    const t = await offered(a, vaultId, b, "pledge");
    expect((await answer(b.key, t.transfer_id, "accept")).status).toBe(200);
    expect((await call("POST", `/partner/vault/${vaultId}/release-pledge`, { key: c.key })).status).toBe(404);
    await offered(b, vaultId, c);
    const res = await call("POST", `/partner/vault/${vaultId}/release-pledge`, { key: b.key });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("transfer_pending");
    expect(await record(vaultId)).toMatchObject({ controller_org_id: b.orgId, pledgor_org_id: a.orgId });
  });

  it("an assignment by the pledgee clears the pledgor", async () => {
    const [a, b, c] = await Promise.all([party(), party(), party()]);
    const { vaultId } = await vaulted(a);
    expect((await answer(b.key, (await offered(a, vaultId, b, "pledge")).transfer_id, "accept")).status).toBe(200);
    expect((await answer(c.key, (await offered(b, vaultId, c)).transfer_id, "accept")).status).toBe(200);
    expect(await record(vaultId)).toMatchObject({ controller_org_id: c.orgId, pledgor_org_id: null, transfer_count: 2 });
  });

  it("reject and cancel settle the transfer and leave control where it was", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { e, vaultId } = await vaulted(a);
    const t1 = await offered(a, vaultId, b);
    const rejected = await answer(b.key, t1.transfer_id, "reject");
    expect(rejected.status).toBe(200);
    expect(rejected.body.data).toEqual({ ...t1, status: "rejected" });
    expect((await chain(e.envelope_id)).at(-1)).toMatchObject({ action: "vault.transfer_rejected", actor_id: b.keyId, data: { acting_org_id: b.orgId } });
    const t2 = await offered(a, vaultId, b, "pledge");
    const cancelled = await answer(a.key, t2.transfer_id, "cancel");
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toEqual({ ...t2, status: "cancelled" });
    expect((await chain(e.envelope_id)).at(-1)).toMatchObject({ action: "vault.transfer_cancelled", actor_id: a.keyId, data: { acting_org_id: a.orgId } });
    expect(await record(vaultId)).toMatchObject({ controller_org_id: a.orgId, pledgor_org_id: null, transfer_count: 0 });
  });

  it("answers the wrong party 403 not_receiver / not_sender, anyone else 404, changing nothing", async () => {
    const [a, b, c] = await Promise.all([party(), party(), party()]);
    const { vaultId } = await vaulted(a);
    const t = await offered(a, vaultId, b);
    for (const verb of ["accept", "reject"] as const) {
      const res = await answer(a.key, t.transfer_id, verb);
      expect(res.status, verb).toBe(403);
      expect(res.body.code).toBe("not_receiver");
    }
    const cancel = await answer(b.key, t.transfer_id, "cancel");
    expect(cancel.status).toBe(403);
    expect(cancel.body.code).toBe("not_sender");
    for (const verb of ["accept", "reject", "cancel"] as const) {
      expect((await answer(c.key, t.transfer_id, verb)).status, verb).toBe(404);
      expect((await answer(a.key, "vtr_00000000000000000000000000", verb)).status, verb).toBe(404);
    }
    expect((await transferRow(t.transfer_id))!.status).toBe("pending");
  });

  it("answers 409 transfer_not_pending once answered (and an Idempotency-Key retry with the first answer)", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { vaultId } = await vaulted(a);
    const t = await offered(a, vaultId, b);
    const headers = { "Idempotency-Key": crypto.randomUUID() };
    const first = await answer(b.key, t.transfer_id, "accept", headers);
    const retry = await answer(b.key, t.transfer_id, "accept", headers);
    expect(first.status).toBe(200);
    expect(retry).toMatchObject({ status: 200, body: first.body });
    for (const [key, verb] of [[b.key, "accept"], [b.key, "reject"], [a.key, "cancel"]] as const) {
      const res = await answer(key, t.transfer_id, verb);
      expect(res.status, verb).toBe(409);
      expect(res.body).toMatchObject({ code: "transfer_not_pending", details: { status: "accepted" } });
    }
    expect(await record(vaultId)).toMatchObject({ controller_org_id: b.orgId, transfer_count: 1 });
  });

  it("settles a pending transfer past expires_at as expired (by the service) and answers 409", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { e, vaultId } = await vaulted(a);
    const t = await offered(a, vaultId, b);
    await shardDbOf(vaultId).prepare("UPDATE vault_transfers SET expires_at = ? WHERE id = ?").bind(new Date(Date.now() - 1000).toISOString(), t.transfer_id).run();
    const res = await answer(b.key, t.transfer_id, "accept");
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "transfer_not_pending", details: { status: "expired" } });
    expect((await transferRow(t.transfer_id))!.status).toBe("expired");
    expect(await record(vaultId)).toMatchObject({ controller_org_id: a.orgId });
    const entry = (await chain(e.envelope_id)).at(-1)!;
    expect(entry).toMatchObject({ action: "vault.transfer_expired", actor_type: "system", data: { transfer_id: t.transfer_id, acting_org_id: null, actor_key_id: null } });
    // the record takes a new offer
    expect((await offer(a.key, vaultId, { kind: "assignment", to_org_id: b.orgId })).status).toBe(201);
  });
});

describe("GET /partner/vault/transfers", () => {
  it("lists the caller's incoming (default) and outgoing transfers, newest first, filtered by status, in { data, meta }", async () => {
    const [a, b, c] = await Promise.all([party(), party(), party()]);
    const [r1, r2] = await Promise.all([vaulted(a), vaulted(a)]);
    const t1 = await offered(a, r1.vaultId, b);
    const t2 = await offered(a, r2.vaultId, b, "pledge");
    expect((await answer(b.key, t1.transfer_id, "reject")).status).toBe(200);

    const incoming = await call("GET", "/partner/vault/transfers", { key: b.key });
    expect(incoming.status).toBe(200);
    expect(incoming.body.meta).toEqual({ page: 1, limit: 20, total: 2 });
    expect(incoming.body.data.map((t: any) => t.transfer_id)).toEqual([t2.transfer_id, t1.transfer_id]);
    expect(incoming.body.data[1]).toEqual({ ...t1, status: "rejected" });
    const pending = await call("GET", "/partner/vault/transfers?direction=incoming&status=pending", { key: b.key });
    expect(pending.body.data.map((t: any) => t.transfer_id)).toEqual([t2.transfer_id]);
    const outgoing = await call("GET", "/partner/vault/transfers?direction=outgoing&limit=1&page=2", { key: a.key });
    expect(outgoing.body).toMatchObject({ meta: { page: 2, limit: 1, total: 2 }, data: [{ transfer_id: t1.transfer_id }] });
    expect((await call("GET", "/partner/vault/transfers?direction=outgoing", { key: b.key })).body.meta.total).toBe(0);
    // a third organization sees none of them
    for (const direction of ["incoming", "outgoing"]) {
      expect((await call("GET", `/partner/vault/transfers?direction=${direction}`, { key: c.key })).body).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0 } });
    }
  });

  it("answers 400 for a bad direction, status or limit", async () => {
    const a = await party();
    for (const q of ["direction=sideways", "status=done", "limit=101", "page=0"]) {
      expect((await call("GET", `/partner/vault/transfers?${q}`, { key: a.key })).status, q).toBe(400);
    }
  });
});

describe("events of a transfer", () => {
  it("reach both organizations' endpoints, and no third organization's", async () => {
    const orgs = await Promise.all(["Dealer", "Bank", "Bystander"].map((name) => party(name)));
    const targets = await Promise.all(
      orgs.map(async (o) => {
        const target = receiverUrl("ok");
        await createEndpoint(await adminToken(o.orgId), { url: target.url, events: ["vault.transfer_requested", "vault.control_transferred"] });
        return target;
      }),
    );
    const [a, b] = orgs as [Party, Party, Party];
    const { e, vaultId } = await vaulted(a);
    const t = await offered(a, vaultId, b);
    expect((await answer(b.key, t.transfer_id, "accept")).status).toBe(200);
    for (const target of targets.slice(0, 2)) {
      const got = await waitForRequests(target!.path, 2);
      const payloads = got.map((r) => JSON.parse(r.body));
      expect(payloads.map((p) => p.event_type).sort()).toEqual(["vault.control_transferred", "vault.transfer_requested"]);
      for (const p of payloads) {
        expect(p.data).toMatchObject({ vault_id: vaultId, envelope_id: e.envelope_id, transfer_id: t.transfer_id, from_org_id: a.orgId, to_org_id: b.orgId });
      }
      expect(payloads.find((p) => p.event_type === "vault.control_transferred").data.controller_org_id).toBe(b.orgId);
    }
    expect(await received(targets[2]!.path)).toEqual([]);
  });
});

describe("Control-Signature on transfers", () => {
  async function withKey(org: Party) {
    const key = await makeControlKey("ES256");
    expect((await registerControlKey(org.key, key)).status).toBe(201);
    const sign = (input: { vault_id: string; action: string; transfer_id?: string; body?: unknown; control_seq?: number }) => recordSignature(key, org.key, input);
    return { kid: key.kid, sign };
  }

  it("an organization with a control key must sign: missing 403 control_signature_required, made for another action 403 control_signature_invalid; the chain keeps the JWS", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { e, vaultId } = await vaulted(a);
    const [ka, kb] = await Promise.all([withKey(a), withKey(b)]);
    const body = { kind: "assignment", to_org_id: b.orgId };
    const missing = await offer(a.key, vaultId, body);
    expect(missing.status).toBe(403);
    expect(missing.body.code).toBe("control_signature_required");
    const wrongTo = await offer(a.key, vaultId, body, { "Control-Signature": await ka.sign({ vault_id: vaultId, action: "transfer", body: { ...body, to_org_id: a.orgId } }) });
    expect(wrongTo.status).toBe(403);
    expect(wrongTo.body.code).toBe("control_signature_invalid");
    // b's key does not sign for a
    const foreign = await offer(a.key, vaultId, body, { "Control-Signature": await kb.sign({ vault_id: vaultId, action: "transfer", body, control_seq: 0 }) });
    expect(foreign.body.code).toBe("control_signature_invalid");
    expect(await shardDbOf(vaultId).prepare("SELECT COUNT(*) AS n FROM vault_transfers WHERE vault_id = ?").bind(vaultId).first("n")).toBe(0);

    const jws = await ka.sign({ vault_id: vaultId, action: "transfer", body });
    const ok = await offer(a.key, vaultId, body, { "Control-Signature": jws });
    expect(ok.status).toBe(201);
    expect((await chain(e.envelope_id)).at(-1)!.data.control_signature).toEqual({ kid: ka.kid, jws });

    const transferId = ok.body.data.transfer_id;
    // the accept is signed over the transfer id: a signature for another action is refused
    const replay = await answer(b.key, transferId, "accept", { "Control-Signature": await kb.sign({ vault_id: vaultId, action: "reject", transfer_id: transferId }) });
    expect(replay.body.code).toBe("control_signature_invalid");
    const accepted = await answer(b.key, transferId, "accept", { "Control-Signature": await kb.sign({ vault_id: vaultId, action: "accept", transfer_id: transferId }) });
    expect(accepted.status).toBe(200);
    expect((await chain(e.envelope_id)).at(-1)!.data.control_signature.kid).toBe(kb.kid);
  });
});
