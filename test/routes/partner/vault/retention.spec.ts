import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { compactVerify, decodeProtectedHeader, importX509 } from "jose";
import { destroyExpired } from "../../../../src/jobs/destroy-expired";
import { call, operator } from "../../../helpers/api";
import { destroyRecord } from "../../../../src/services/retention/destroy-record";
import { listPendingDeletions } from "../../../../src/services/vault/repository";
import { jobContextOf, orgContextOf } from "../../../helpers/context";
import { party, vaulted, type Party } from "../../../helpers/control";
import { signedSigner } from "../../../helpers/vault";
import { shardDbOf } from "../../../helpers/shards";
import { adminToken } from "../../../helpers/webhooks";
import { signCopyUrl } from "../../../../src/services/copies/copy-url";

const post = (key: string, vaultId: string, what: string, body?: unknown) => call("POST", `/partner/vault/${vaultId}/${what}`, { key, body });
const get = (key: string, vaultId: string) => call("GET", `/partner/vault/${vaultId}`, { key });
const row = (vaultId: string) => shardDbOf(vaultId).prepare("SELECT * FROM vault_records WHERE id = ?").bind(vaultId).first<Record<string, any>>();
/** The passage of time: the record's retention ends `days` days ago. */
const retentionPassed = (vaultId: string, days = 1) =>
  shardDbOf(vaultId).prepare("UPDATE vault_records SET retain_until = ? WHERE id = ?").bind(new Date(Date.now() - days * 86_400_000).toISOString(), vaultId).run();
const objects = async (r: Record<string, any>) => (await env.DOCS.list({ prefix: `vault/${r.org_id}/${r.envelope_id}/${r.id}/` })).objects.map((o) => o.key.split("/").pop()!);
const eventsOf = (envelopeId: string, type: string) =>
  shardDbOf(envelopeId).prepare("SELECT org_id, data FROM events WHERE envelope_id = ? AND type = ?").bind(envelopeId, type).all<{ org_id: string; data: string }>().then((r) => r.results);

async function closedRecord(owner: Party, how: "paid-off" | "paper-out" = "paid-off") {
  const v = await vaulted(owner);
  const res = await post(owner.key, v.vaultId, how, how === "paid-off" ? { reference: "Payoff #1" } : { reason: "Wet ink requested" });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return v;
}

describe("retention policy: PUT /org/retention and retain_until at close", () => {
  it("an admin sets the policy and reads it back; a record closed afterwards is kept that many years from its close", async () => {
    const a = await party("Lakeside Motors");
    const admin = await adminToken(a.orgId);
    const before = await call("GET", "/org/retention", { bearer: admin });
    expect(before.status).toBe(200);
    expect(before.body.data).toMatchObject({ org_id: a.orgId, retain_years_after_close: 7, auto_destroy: false, updated_at: null });
    const put = await call("PUT", "/org/retention", { bearer: admin, body: { retain_years_after_close: 10, auto_destroy: true } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await call("GET", "/org/retention", { bearer: admin })).body.data).toMatchObject({ retain_years_after_close: 10, auto_destroy: true });
    expect((await call("PUT", "/org/retention", { bearer: admin, body: { retain_years_after_close: 51 } })).status).toBe(422);
    expect((await call("PUT", "/org/retention", { bearer: await adminToken(a.orgId, "member"), body: { retain_years_after_close: 3 } })).status).toBe(403);

    const { vaultId } = await closedRecord(a);
    const r = (await row(vaultId))!;
    const years = new Date(r.retain_until).getUTCFullYear() - new Date(r.closed_at).getUTCFullYear();
    expect(years).toBe(10);
    const read = await get(a.key, vaultId);
    expect(read.body.data).toMatchObject({ status: "paid_off", retain_until: r.retain_until, destroyed_at: null, holds: [], destruction: null });
  });
});

describe("POST /partner/vault/{vault_id}/destroy", () => {
  it("before retain_until: 409 retention_period; an active record too; another party: 403 not_controller", async () => {
    const [a, b] = await Promise.all([party("Dealer"), party("Bank")]);
    const active = await vaulted(a);
    const early = await post(a.key, active.vaultId, "destroy");
    expect([early.status, early.body.code]).toEqual([409, "retention_period"]);
    const { vaultId } = await closedRecord(a);
    const refused = await post(a.key, vaultId, "destroy");
    expect([refused.status, refused.body.code]).toEqual([409, "retention_period"]);
    expect(refused.body.details.retain_until).toBe((await row(vaultId))!.retain_until);
    expect((await post(b.key, vaultId, "destroy")).status).toBe(404);
    expect((await row(vaultId))!.control_status).toBe("paid_off");
  });

  it("after retain_until: the files are deleted, the record reads destroyed with its hash, chain and sealed destruction certificate; downloads answer 409 record_destroyed; the certificate stays", async () => {
    const a = await party("Dealer");
    const { e, vaultId, record } = await closedRecord(a, "paper-out");
    const signer = await signedSigner(e.envelope_id, a.orgId);
    expect(await objects(record)).toEqual(expect.arrayContaining(["authoritative.pdf", "copy.pdf", "paper-out.pdf"]));
    await retentionPassed(vaultId);
    const res = await post(a.key, vaultId, "destroy");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { destruction } = res.body.data;
    expect(res.body.data).toMatchObject({ vault_id: vaultId, status: "destroyed" });
    expect(destruction.certificate).toMatchObject({
      type: "vault-destruction-certificate",
      vault_id: vaultId,
      document_hash: record.document_hash,
      closed_status: "paper_out",
      destroyed_by: { type: "organization", org_id: a.orgId },
    });
    expect(destruction.certificate.deleted.map((d: any) => d.file)).toEqual(expect.arrayContaining(["authoritative.pdf", "copy.pdf", "paper-out.pdf"]));
    // the JWS is the seal's over the certificate
    const header = decodeProtectedHeader(destruction.jws);
    expect(header.typ).toBe("vault-destruction-certificate+jws");
    const cert = `-----BEGIN CERTIFICATE-----\n${(header.x5c as string[])[0]}\n-----END CERTIFICATE-----`;
    const verified = await compactVerify(destruction.jws, await importX509(cert, header.alg!));
    expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(destruction.certificate);

    const left = await objects(record);
    expect(left.filter((k) => k.endsWith(".pdf") && !k.startsWith("certificate-"))).toEqual([]);
    expect(left.some((k) => k.startsWith("certificate-"))).toBe(true);

    const read = await get(a.key, vaultId);
    expect(read.body.data).toMatchObject({ status: "destroyed", document_hash: record.document_hash, destruction });
    expect(read.body.data.compliance.missing_requirements).toEqual(expect.arrayContaining(["single_authoritative_copy", "unalterable", "custody_by_secured_party", "copies_identifiable"]));
    const compliance = await call("GET", `/partner/envelopes/${e.envelope_id}/compliance`, { key: a.key });
    const unalterable = compliance.body.data.compliance.checks.find((c: any) => c.requirement === "unalterable");
    expect(unalterable.detail).toContain("destroyed");
    expect(compliance.body.data.compliance.checks.find((c: any) => c.requirement === "revisions_identifiable").satisfied).toBe(true);

    for (const what of ["copy/signed-url", "evidence/signed-url"]) {
      const refused = await call("GET", `/partner/vault/${vaultId}/${what}`, { key: a.key });
      expect([refused.status, refused.body.code], what).toEqual([409, "record_destroyed"]);
    }
    // so does a signer's copy link that is still in its 30 days
    const signedAt = (await shardDbOf(e.envelope_id).prepare("SELECT signed_at FROM envelopes WHERE id = ?").bind(e.envelope_id).first<string>("signed_at"))!;
    const link = await signCopyUrl(env, { envelopeId: e.envelope_id, recipientId: signer.id, signedAt });
    const copy = await SELF.fetch(link.url);
    const copyBody = (await copy.json()) as { code: string };
    expect([copy.status, copyBody.code], JSON.stringify(copyBody)).toEqual([409, "record_destroyed"]);
    // the authoritative copy answers as every closed record's does
    const ac = await call("GET", `/partner/vault/${vaultId}/signed-url`, { key: a.key });
    expect([ac.status, ac.body.code]).toEqual([409, "control_closed"]);
    expect((await call("GET", `/partner/vault/${vaultId}/certificate`, { key: a.key })).status).toBe(200);
    const again = await post(a.key, vaultId, "destroy");
    expect([again.status, again.body.code]).toEqual([409, "record_destroyed"]);
    const ev = await eventsOf(e.envelope_id, "vault.destroyed");
    expect(ev.map((x) => x.org_id)).toEqual([a.orgId]);
    const chain = await shardDbOf(e.envelope_id).prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq DESC LIMIT 1").bind(e.envelope_id).first<string>("action");
    expect(chain).toBe("vault.destroyed");
  });
});

describe("legal holds", () => {
  it("any party places a hold; it blocks destruction (legal_hold wins over retention_period) by hand and by cron; only whoever placed it releases it", async () => {
    const [a, b] = await Promise.all([party("Dealer"), party("Bank")]);
    const v = await vaulted(a);
    const t = await post(a.key, v.vaultId, "transfers", { kind: "assignment", to_org_id: b.orgId });
    expect((await call("POST", `/partner/vault/transfers/${t.body.data.transfer_id}/accept`, { key: b.key })).status).toBe(200);
    expect((await call("PUT", "/org/retention", { bearer: await adminToken(b.orgId), body: { retain_years_after_close: 1, auto_destroy: true } })).status).toBe(200);
    expect((await post(b.key, v.vaultId, "paid-off", {})).status).toBe(200);

    // the originator (no longer controller) places a hold
    const placed = await post(a.key, v.vaultId, "holds", { reason: "Litigation: Smith v. Dealer", reference: "26-cv-0412" });
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    const hold = placed.body.data;
    expect(hold).toMatchObject({ placed_by_org_id: a.orgId, reason: "Litigation: Smith v. Dealer", reference: "26-cv-0412" });
    const op = await operator("POST", `/vault/${v.vaultId}/holds`, { reason: "Regulator request" });
    expect(op.status, JSON.stringify(op.body)).toBe(201);
    expect(op.body.data.placed_by_org_id).toBeNull();

    const held = await post(b.key, v.vaultId, "destroy");
    expect([held.status, held.body.code]).toEqual([409, "legal_hold"]);
    await retentionPassed(v.vaultId);
    const stillHeld = await post(b.key, v.vaultId, "destroy");
    expect([stillHeld.status, stillHeld.body.code]).toEqual([409, "legal_hold"]);
    await destroyExpired(jobContextOf(v.vaultId));
    expect((await row(v.vaultId))!.control_status).toBe("paid_off");

    const read = await get(b.key, v.vaultId);
    expect(read.body.data.holds.map((h: any) => h.hold_id)).toEqual([hold.hold_id, op.body.data.hold_id]);
    const cert = await call("GET", `/partner/vault/${v.vaultId}/certificate`, { key: b.key });
    expect(cert.body.data.control.legal_holds.map((h: any) => h.hold_id)).toEqual([hold.hold_id, op.body.data.hold_id]);
    expect((await eventsOf(v.e.envelope_id, "vault.hold_placed")).map((x) => x.org_id).sort()).toEqual([a.orgId, b.orgId, a.orgId, b.orgId].sort());

    // only whoever placed it releases it
    const wrong = await call("DELETE", `/partner/vault/${v.vaultId}/holds/${hold.hold_id}`, { key: b.key });
    expect([wrong.status, wrong.body.code]).toEqual([403, "not_hold_owner"]);
    const notOperators = await call("DELETE", `/partner/vault/${v.vaultId}/holds/${op.body.data.hold_id}`, { key: a.key });
    expect(notOperators.status).toBe(403);
    expect((await call("DELETE", `/partner/vault/${v.vaultId}/holds/${hold.hold_id}`, { key: a.key })).status).toBe(200);
    const twice = await call("DELETE", `/partner/vault/${v.vaultId}/holds/${hold.hold_id}`, { key: a.key });
    expect([twice.status, twice.body.code]).toEqual([409, "hold_released"]);
    await destroyExpired(jobContextOf(v.vaultId));
    expect((await row(v.vaultId))!.control_status).toBe("paid_off");
    expect((await operator("DELETE", `/vault/${v.vaultId}/holds/${op.body.data.hold_id}`)).status).toBe(200);
    expect((await eventsOf(v.e.envelope_id, "vault.hold_released")).length).toBe(4);

    // no hold left: the cron destroys it (the controller's policy says auto_destroy)
    await destroyExpired(jobContextOf(v.vaultId));
    const done = (await row(v.vaultId))!;
    expect(done.control_status).toBe("destroyed");
    expect(JSON.parse(done.destruction_certificate).destroyed_by).toEqual({ type: "retention_cron", org_id: b.orgId });
    expect((await get(b.key, v.vaultId)).body.data.holds).toEqual([]);
  });

  it("the cron leaves a record alone when its controller's policy does not say auto_destroy", async () => {
    const a = await party("Dealer");
    const { vaultId } = await closedRecord(a);
    await retentionPassed(vaultId, 400);
    await destroyExpired(jobContextOf(vaultId));
    expect((await row(vaultId))!.control_status).toBe("paid_off");
  });
});

describe("what a destruction leaves in R2", () => {
  /** Every object stored for the record and its envelope: its vault directory, its documents, drawn signatures and signer copies. */
  const storedFor = async (r: Record<string, any>) => {
    const keys: string[] = [];
    for (const prefix of [`vault/${r.org_id}/${r.envelope_id}/`, `documents/${r.org_id}/`, `signatures/${r.org_id}/${r.envelope_id}/`, `copies/${r.org_id}/${r.envelope_id}/`]) {
      keys.push(...(await env.DOCS.list({ prefix })).objects.map((o) => o.key));
    }
    return keys.sort();
  };
  const documentKeys = async (envelopeId: string) =>
    (await shardDbOf(envelopeId).prepare("SELECT r2_key FROM envelope_documents WHERE envelope_id = ? ORDER BY kind").bind(envelopeId).all<{ r2_key: string }>()).results.map((d) => d.r2_key);
  /** A drawn signature and a signer's copy, stored under the envelope as signing and copy links store them. */
  const signerObjects = async (r: Record<string, any>) => {
    await env.DOCS.put(`signatures/${r.org_id}/${r.envelope_id}/signer-${crypto.randomUUID()}.png`, new Uint8Array([137, 80, 78, 71]));
    await env.DOCS.put(`copies/${r.org_id}/${r.envelope_id}/${"0".repeat(64)}.pdf`, new TextEncoder().encode("%PDF-1.7"));
  };
  /** What stays: the certificate PDFs and evidence records of the vault directory, nothing of the document. */
  const kept = (key: string) => /\/certificate-[^/]+\.pdf$/.test(key) || /\/evidence-record-[^/]+\.ers$/.test(key);

  it("after destruction no object of the record or its envelope remains but its certificates and evidence records: the envelope's documents, drawn signatures and signer copies are gone", async () => {
    const a = await party("Dealer");
    const { vaultId, record } = await closedRecord(a, "paper-out");
    await signerObjects(record);
    const documents = await documentKeys(record.envelope_id);
    expect(documents.length).toBeGreaterThanOrEqual(1);
    const before = await storedFor(record);
    expect(before).toEqual(expect.arrayContaining(documents));
    expect(before.filter((k) => !kept(k)).length).toBeGreaterThanOrEqual(documents.length + 5);
    await retentionPassed(vaultId);
    const res = await post(a.key, vaultId, "destroy");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.destruction.certificate.deleted.map((d: any) => d.file)).toEqual(expect.arrayContaining(["authoritative.pdf", "paper-out.pdf", "drawn-signature.png", "signer-copy.pdf"]));

    const after = await storedFor(record);
    expect(after.filter((k) => !kept(k))).toEqual([]);
    expect(after.some((k) => k.includes("/certificate-"))).toBe(true);
    expect((await row(vaultId))!.pending_deletions).toBeNull();
    // the envelope's rows (hashes) stay: only the bytes are gone
    expect(await documentKeys(record.envelope_id)).toEqual(documents);
  });

  it("a deletion that fails is kept pending on the record and the destruction cron deletes it on its next run", async () => {
    const a = await party("Dealer");
    const { vaultId, record } = await closedRecord(a);
    await signerObjects(record);
    await retentionPassed(vaultId);
    const base = orgContextOf(a.orgId, vaultId);
    let refused = 0;
    const failing = new Proxy(env.DOCS, {
      get(target, prop) {
        if (prop === "delete") {
          return async () => {
            refused += 1;
            throw new Error("injected: R2 delete failed");
          };
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const destroyed = await destroyRecord({ ...base, env: { ...base.env, DOCS: failing } }, { vaultId, by: { orgId: a.orgId } });
    expect(destroyed.status).toBe("destroyed");
    expect(refused).toBe(1);

    const pending = JSON.parse((await row(vaultId))!.pending_deletions) as string[];
    expect(pending).toEqual(expect.arrayContaining(await documentKeys(record.envelope_id)));
    expect(pending).toEqual(expect.arrayContaining([record.authoritative_key, record.copy_key]));
    expect(pending.sort()).toEqual((await storedFor(record)).filter((k) => !kept(k)));
    // the record reads destroyed all the same: nothing is served from the objects still there
    expect((await get(a.key, vaultId)).body.data.status).toBe("destroyed");

    const run = await destroyExpired(jobContextOf(vaultId));
    expect(run.retried).toBeGreaterThanOrEqual(1);
    expect((await storedFor(record)).filter((k) => !kept(k))).toEqual([]);
    expect((await row(vaultId))!.pending_deletions).toBeNull();
    // a run after that has nothing of this record's left to do
    expect((await listPendingDeletions(shardDbOf(vaultId), 1000)).map((p) => p.id)).not.toContain(vaultId);
  });
});
