import { describe, expect, it } from "vitest";
import { call, newKey } from "../../../helpers/api";
import { sha256Hex } from "../../../helpers/pdf";
import { party, transferred, offered, vaulted, type Party } from "../../../helpers/control";
import { completedEnvelope, download } from "../../../helpers/vault";
import { shardDbOf } from "../../../helpers/shards";





const get = (key: string, path: string) => call("GET", path, { key });

describe("GET /partner/envelopes/{envelope_id}: vault_id", () => {
  it("is null until the envelope is vaulted, then the vault record's id, also in the vault-in answer", async () => {
    const a = await party("Dealer");
    const e = await completedEnvelope(a.key);
    const before = await get(a.key, `/partner/envelopes/${e.envelope_id}`);
    expect(before.status).toBe(200);
    expect(before.body.data.vault_id).toBeNull();
    const vaultIn = await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: a.key, body: {} });
    const row = await shardDbOf(e.envelope_id).prepare("SELECT id FROM vault_records WHERE envelope_id = ?").bind(e.envelope_id).first<{ id: string }>();
    expect(row!.id).toMatch(/^vlt_/);
    expect(vaultIn.body.data.vault_id).toBe(row!.id);
    const after = await get(a.key, `/partner/envelopes/${e.envelope_id}`);
    expect(after.body.data.vault_id).toBe(row!.id);
    // asked again (already vaulted): the same id
    const again = await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: a.key, body: {} });
    expect(again.body.data.vault_id).toBe(row!.id);
  });
});

describe("GET /partner/vault/{vault_id}", () => {
  it("shows the originator its record: parties named, no pledgor, no pending transfer, the live compliance", async () => {
    const a = await party("Lakeside Motors");
    const { e, vaultId } = await vaulted(a);
    const res = await get(a.key, `/partner/vault/${vaultId}`);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(Object.keys(d).sort()).toEqual(
      [
        "compliance", "control_seq", "controller", "document_hash", "envelope_id", "evidence_level", "originator", "pending_transfer", "pledgor", "status", "vault_id", "vaulted_at",
        "closed_at", "retain_until", "destroyed_at", "holds", "destruction",
      ].sort(),
    );
    expect(d).toMatchObject({ closed_at: null, retain_until: null, destroyed_at: null, holds: [], destruction: null });
    expect(d).toMatchObject({
      vault_id: vaultId,
      envelope_id: e.envelope_id,
      document_hash: e.hash,
      status: "active",
      originator: { org_id: a.orgId, name: "Lakeside Motors" },
      controller: { org_id: a.orgId, name: "Lakeside Motors" },
      pledgor: null,
      pending_transfer: null,
      compliance: { compliant: true, score: 1, missing_requirements: [] },
    });
    expect(Date.parse(d.vaulted_at)).not.toBeNaN();
  });

  it("is visible exactly to the parties: the offeree while the offer is pending, never a stranger (404); needs vault:read", async () => {
    const [a, b, c] = await Promise.all([party("Dealer"), party("Bank"), party("Stranger")]);
    const { vaultId } = await vaulted(a);
    expect((await get(b.key, `/partner/vault/${vaultId}`)).status).toBe(404);
    const t = await offered(a, vaultId, b);
    const seen = await get(b.key, `/partner/vault/${vaultId}`);
    expect(seen.status).toBe(200);
    expect(seen.body.data.pending_transfer).toMatchObject({ transfer_id: t.transfer_id, kind: "assignment", from_org_id: a.orgId, to_org_id: b.orgId, status: "pending" });
    expect((await get(c.key, `/partner/vault/${vaultId}`)).status).toBe(404);
    expect((await get(c.key, `/partner/vault/${vaultId}`)).body.error).toBe("Vault record not found");
    // rejected: the offeree no longer sees it
    expect((await call("POST", `/partner/vault/transfers/${t.transfer_id}/reject`, { key: b.key })).status).toBe(200);
    expect((await get(b.key, `/partner/vault/${vaultId}`)).status).toBe(404);
    expect((await get(a.key, `/partner/vault/vlt_${"0".repeat(26)}`)).status).toBe(404);
    const noScope = await newKey(a.orgId, ["envelopes:read"]);
    expect((await get(noScope.key, `/partner/vault/${vaultId}`)).status).toBe(403);
  });

  it("after an assignment and a pledge names the new controller and the pledgor; the originator still sees it", async () => {
    const [a, b, c] = await Promise.all([party("Dealer"), party("Bank"), party("Warehouse")]);
    const { vaultId } = await vaulted(a);
    await transferred(a, vaultId, b);
    await transferred(b, vaultId, c, "pledge");
    for (const p of [a, b, c]) {
      const res = await get(p.key, `/partner/vault/${vaultId}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        originator: { org_id: a.orgId, name: "Dealer" },
        controller: { org_id: c.orgId, name: "Warehouse" },
        pledgor: { org_id: b.orgId, name: "Bank" },
        pending_transfer: null,
        compliance: { compliant: true },
      });
    }
  });
});

describe("GET /partner/vault (the book)", () => {
  it("lists the caller's records by role, newest first, with meta; an unknown role or limit is 400", async () => {
    const [a, b, c] = await Promise.all([party("Dealer"), party("Bank"), party("Warehouse")]);
    const first = await vaulted(a);
    const second = await vaulted(a);
    await transferred(a, first.vaultId, b);
    await transferred(b, first.vaultId, c, "pledge");
    const pending = await offered(a, second.vaultId, b);

    const ids = async (p: Party, query: string) => {
      const res = await get(p.key, `/partner/vault${query}`);
      expect(res.status).toBe(200);
      return res;
    };
    const aController = await ids(a, "");
    expect(aController.body.data.map((r: { vault_id: string }) => r.vault_id)).toEqual([second.vaultId]);
    expect(aController.body.meta).toEqual({ page: 1, limit: 20, total: 1 });
    expect(aController.body.data[0]).toMatchObject({ controller: { org_id: a.orgId, name: "Dealer" }, pending_transfer: { transfer_id: pending.transfer_id, to_org_id: b.orgId } });
    expect(aController.body.data[0].compliance).toBeUndefined();

    const aOriginated = await ids(a, "?role=originator");
    expect(aOriginated.body.data.map((r: { vault_id: string }) => r.vault_id)).toEqual([second.vaultId, first.vaultId]);
    expect((await ids(a, "?role=originator&limit=1&page=2")).body).toMatchObject({ data: [{ vault_id: first.vaultId }], meta: { page: 2, limit: 1, total: 2 } });

    expect((await ids(b, "?role=controller")).body.data).toEqual([]);
    const bPledged = await ids(b, "?role=pledgor");
    expect(bPledged.body.data).toHaveLength(1);
    expect(bPledged.body.data[0]).toMatchObject({ vault_id: first.vaultId, controller: { org_id: c.orgId, name: "Warehouse" }, pledgor: { org_id: b.orgId, name: "Bank" } });
    expect((await ids(c, "?role=controller")).body.data.map((r: { vault_id: string }) => r.vault_id)).toEqual([first.vaultId]);

    expect((await get(a.key, "/partner/vault?role=owner")).status).toBe(400);
    expect((await get(a.key, "/partner/vault?limit=101")).status).toBe(400);
  });
});

describe("downloads follow control", () => {
  it("issues the authoritative copy to the controller only: the originator after it sold gets 403 not_controller on both paths", async () => {
    const [a, b, c] = await Promise.all([party("Dealer"), party("Bank"), party("Stranger")]);
    const { e, vaultId } = await vaulted(a);
    // while it controls, the originator gets it on both paths
    expect((await get(a.key, `/partner/envelopes/${e.envelope_id}/vault/signed-url`)).status).toBe(200);
    expect((await get(a.key, `/partner/vault/${vaultId}/signed-url`)).status).toBe(200);

    await transferred(a, vaultId, b);

    const mine = await get(b.key, `/partner/vault/${vaultId}/signed-url?expires=120`);
    expect(mine.status).toBe(200);
    expect(mine.body.data.expires_in).toBe(120);
    const file = await download(mine.body.data.signed_url);
    expect(file.status).toBe(200);
    expect(await sha256Hex(file.bytes)).toBe(e.hash);

    for (const path of [`/partner/vault/${vaultId}/signed-url`, `/partner/envelopes/${e.envelope_id}/vault/signed-url`]) {
      const refused = await get(a.key, path);
      expect(refused.status, path).toBe(403);
      expect(refused.body.code).toBe("not_controller");
    }
    expect((await get(c.key, `/partner/vault/${vaultId}/signed-url`)).status).toBe(404);
    // the envelope path belongs to the envelope's organization: the controller uses the vault path
    expect((await get(b.key, `/partner/envelopes/${e.envelope_id}/vault/signed-url`)).status).toBe(404);
    expect((await get(b.key, `/partner/vault/${vaultId}/signed-url?expires=59`)).status).toBe(400);
  });

  it("gives the marked copy, the certificate (JSON and PDF) and the evidence bundle to every party, 404 to anyone else", async () => {
    const [a, b, c, d] = await Promise.all([party("Dealer"), party("Bank"), party("Warehouse"), party("Stranger")]);
    const { e, vaultId } = await vaulted(a);
    await transferred(a, vaultId, b);
    await transferred(b, vaultId, c, "pledge");
    for (const p of [a, b, c]) {
      const copy = await get(p.key, `/partner/vault/${vaultId}/copy/signed-url`);
      expect(copy.status).toBe(200);
      const bytes = await download(copy.body.data.signed_url);
      expect(bytes.status).toBe(200);
      expect(await sha256Hex(bytes.bytes)).not.toBe(e.hash);

      const cert = await get(p.key, `/partner/vault/${vaultId}/certificate`);
      expect(cert.status).toBe(200);
      expect(cert.body.data.document_integrity.document_hash).toBe(e.hash);
      expect(cert.body.data.subject.envelope_id).toBe(e.envelope_id);

      const pdf = await get(p.key, `/partner/vault/${vaultId}/certificate/signed-url`);
      expect(pdf.status).toBe(200);
      expect((await download(pdf.body.data.signed_url)).headers.get("content-type")).toBe("application/pdf");
    }
    // the pledgor (B) is not the controller
    expect((await get(b.key, `/partner/vault/${vaultId}/signed-url`)).body.code).toBe("not_controller");

    const evidence = await get(b.key, `/partner/vault/${vaultId}/evidence/signed-url`);
    expect(evidence.status).toBe(200);
    const zip = await download(evidence.body.data.signed_url);
    expect(zip.status).toBe(200);
    expect(zip.headers.get("content-type")).toBe("application/zip");

    // the certificate is the same JSON the envelope path gives the originator
    const viaEnvelope = await get(a.key, `/partner/envelopes/${e.envelope_id}/vault/certificate`);
    expect((await get(c.key, `/partner/vault/${vaultId}/certificate`)).body.data).toEqual(viaEnvelope.body.data);

    for (const path of ["copy/signed-url", "certificate", "certificate/signed-url", "evidence/signed-url", "control-history", "attestation"]) {
      expect((await get(d.key, `/partner/vault/${vaultId}/${path}`)).status, path).toBe(404);
    }
  });
});

describe("GET /partner/vault/{vault_id}/control-history", () => {
  it("lists the control steps oldest first, as the chain records them, to every party", async () => {
    const [a, b, c] = await Promise.all([party("Dealer"), party("Bank"), party("Warehouse")]);
    const { e, vaultId } = await vaulted(a);
    const empty = await get(a.key, `/partner/vault/${vaultId}/control-history`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ data: [] });

    const t1 = await transferred(a, vaultId, b);
    const t2 = await offered(b, vaultId, c, "pledge");
    expect((await call("POST", `/partner/vault/transfers/${t2.transfer_id}/cancel`, { key: b.key })).status).toBe(200);

    const res = await get(b.key, `/partner/vault/${vaultId}/control-history`);
    expect(res.status).toBe(200);
    const history = res.body.data as Record<string, unknown>[];
    expect(history.map((h) => h.action)).toEqual(["vault.transfer_requested", "vault.control_transferred", "vault.transfer_requested", "vault.transfer_cancelled"]);
    expect(history[0]).toMatchObject({ from_org_id: a.orgId, to_org_id: b.orgId, transfer_id: t1.transfer_id, actor_key_id: a.keyId });
    expect(history[1]).toMatchObject({ from_org_id: a.orgId, to_org_id: b.orgId, transfer_id: t1.transfer_id, actor_key_id: b.keyId });
    expect(history[3]).toMatchObject({ transfer_id: t2.transfer_id, actor_key_id: b.keyId });

    const { results } = await shardDbOf(e.envelope_id).prepare("SELECT seq, action, hash, created_at FROM audit_log WHERE chain_id = ? AND action LIKE 'vault.%' ORDER BY seq").bind(e.envelope_id).all<Record<string, unknown>>();
    const rows = results.filter((r) => history.some((h) => h.seq === r.seq));
    expect(history.map((h) => ({ seq: h.seq, action: h.action, hash: h.entry_hash, created_at: h.at }))).toEqual(rows);
    const seqs = history.map((h) => h.seq as number);
    expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
    // the originator (no longer controller) reads the same history
    expect((await get(a.key, `/partner/vault/${vaultId}/control-history`)).body).toEqual(res.body);
  });
});
