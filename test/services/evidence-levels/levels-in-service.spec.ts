import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { raiseEvidenceJob } from "../../../src/jobs/raise-evidence";
import { autoVaultSweep } from "../../../src/jobs/auto-vault-sweep";
import { sha256Hex } from "../../../src/lib/crypto";
import { autoVaultIfConsented } from "../../../src/services/vault/auto-vault";
import { callWith, newTenant } from "../../helpers/api";
import { jobContextOf } from "../../helpers/context";
import { sendableEnvelope, sendEnvelope } from "../../helpers/signing";
import { storedDocument } from "../../helpers/signing-flow";
import { giveAutoVaultConsent, vaultRecord } from "../../helpers/vault";
import { party, transferred } from "../../helpers/control";
import { checkSignatures, ltEnv, outage } from "../../pdf/seal/evidence-helpers";
import { shardDbOf } from "../../helpers/shards";

/**
 * docs/evidence.md in the service: the completing submit seals as high as the configuration allows and
 * never fails for a TSA or OCSP outage; the raising job adds what is missing; auto-vault waits for the
 * target up to SEAL_EVIDENCE_WAIT_MINUTES; the vault record and certificate say the level vaulted.
 * The TSA and OCSP responder are OpenSSL behind the stand-ins; outages are their admin switch.
 */

/** A sent one-signer envelope (auto-vault consented unless `consent: false`), then the buyer's submit under `bindings`. */
async function complete(bindings: Env, opts: { consent?: boolean; tenant?: Awaited<ReturnType<typeof newTenant>> } = {}) {
  const t = opts.tenant ?? (await newTenant());
  const e = await sendableEnvelope(t.key, ["buyer"], { secured_party: { name: "First Auto Finance LLC", role: "lender" } });
  const sent = await sendEnvelope(t.key, e.envelope_id, { signers: [{ role: "buyer", email: "ann@example.com", name: "Ann Buyer", routing_order: 1 }] });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  if (opts.consent !== false) expect((await giveAutoVaultConsent(t.orgId, e.envelope_id)).status).toBe(200);
  const submit = await callWith(bindings, "POST", `/signing/${sent.body.data.signers[0].slug}/submit`, { body: { values: { buyer_signature: "Ann Buyer" } } });
  return { t, envelopeId: e.envelope_id as string, submit };
}

const signedRow = (envelopeId: string) =>
  shardDbOf(envelopeId).prepare("SELECT r2_key, sha256, evidence_level FROM envelope_documents WHERE envelope_id = ? AND kind = 'signed'").bind(envelopeId).first<{ r2_key: string; sha256: string; evidence_level: string }>();

async function auditOf(envelopeId: string) {
  const { results } = await shardDbOf(envelopeId).prepare("SELECT action, data FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(envelopeId).all<{ action: string; data: string }>();
  return results.map((r) => ({ action: r.action, data: JSON.parse(r.data) as Record<string, any> }));
}

async function statusOf(envelopeId: string) {
  return (await shardDbOf(envelopeId).prepare("SELECT status FROM envelopes WHERE id = ?").bind(envelopeId).first<{ status: string }>())!.status;
}

/** The authoritative copy's bytes as vaulted, read from R2 by the record's key. */
async function authoritative(envelopeId: string) {
  const record = await vaultRecord(envelopeId);
  const object = await env.DOCS.get(record!.authoritative_key as string);
  return new Uint8Array(await object!.arrayBuffer());
}

const certificateOf = async (bindings: Env, key: string, envelopeId: string) => (await callWith(bindings, "GET", `/partner/envelopes/${envelopeId}/vault/certificate`, { key })).body.data;

describe("evidence levels: completion, the raising job, vaulting", () => {
  it("a completion under the LT configuration reaches B-LTA, and the vault record and certificate say B-LTA", async () => {
    const bindings = ltEnv({ tsaPath: "evl-full" });
    const { t, envelopeId, submit } = await complete(bindings);
    expect(submit.status, JSON.stringify(submit.body)).toBe(200);
    expect((await signedRow(envelopeId))!.evidence_level).toBe("B-LTA");
    const completion = (await auditOf(envelopeId)).find((a) => a.action === "envelope.complete")!;
    expect(completion.data).toMatchObject({ evidence_level: "B-LTA", evidence_level_target: "B-LTA" });
    expect(completion.data.evidence_shortfall).toBeUndefined();

    // at target: auto-vault did not wait
    expect(await statusOf(envelopeId)).toBe("vaulted");
    const record = await vaultRecord(envelopeId);
    expect(record).toMatchObject({ evidence_level: "B-LTA" });
    const bytes = await authoritative(envelopeId);
    expect(await sha256Hex(bytes)).toBe((await signedRow(envelopeId))!.sha256);
    // checked outside the code that made them: every signature valid, a document timestamp covering the whole file
    const sigs = await checkSignatures([bytes]);
    expect(sigs.every((s) => s.valid)).toBe(true);
    expect(sigs.at(-1)).toMatchObject({ subFilter: "ETSI.RFC3161", wholeFile: true, imprintMatches: true });

    const cert = await certificateOf(bindings, t.key, envelopeId);
    expect(cert.document_integrity).toEqual({ hash_algorithm: "SHA-256", document_hash: record!.document_hash, evidence_level: "B-LTA" });
    const read = await callWith(bindings, "GET", `/partner/vault/${record!.id}`, { key: t.key });
    expect(read.body.data.evidence_level).toBe("B-LTA");
  });

  it("TSA down at completion: the submit succeeds at B-B, auto-vault waits, the job raises to B-LTA once the TSA is back, then auto-vault vaults B-LTA", async () => {
    const bindings = ltEnv({ tsaPath: "evl-tsa-down" });
    await outage(env.TEST_TSA_URL, "/tsa/evl-tsa-down", true);
    let envelopeId: string;
    let key: string;
    let before: { r2_key: string; sha256: string; evidence_level: string };
    try {
      const done = await complete(bindings);
      envelopeId = done.envelopeId;
      key = done.t.key;
      expect(done.submit.status, JSON.stringify(done.submit.body)).toBe(200);
      expect(done.submit.body.data).toMatchObject({ completed: true, envelope_status: "completed" });
      before = (await signedRow(envelopeId))!;
      expect(before.evidence_level).toBe("B-B");
      const completion = (await auditOf(envelopeId)).find((a) => a.action === "envelope.complete")!;
      expect(completion.data).toMatchObject({ evidence_level: "B-B", evidence_level_target: "B-LTA" });
      expect(completion.data.evidence_shortfall).toMatch(/timestamp authority.*503/i);

      // the completion's own auto-vault waited; so does a later one
      expect(await statusOf(envelopeId)).toBe("completed");
      const waiting = await autoVaultIfConsented(jobContextOf(envelopeId, bindings), { envelopeId });
      expect(waiting.vaulted).toBe(false);
      expect(waiting).toMatchObject({ reason: expect.stringContaining("B-LTA") });

      // still down: the job adds nothing and changes nothing
      await raiseEvidenceJob(jobContextOf(envelopeId, bindings));
      expect(await signedRow(envelopeId)).toEqual(before);
    } finally {
      await outage(env.TEST_TSA_URL, "/tsa/evl-tsa-down", false);
    }

    const run = await raiseEvidenceJob(jobContextOf(envelopeId, bindings));
    expect(run?.raised, JSON.stringify(run)).toContainEqual({ envelopeId, from: "B-B", to: "B-LTA" });
    const after = (await signedRow(envelopeId))!;
    expect(after.evidence_level).toBe("B-LTA");
    expect(after.r2_key).not.toBe(before.r2_key);
    expect(after.sha256).not.toBe(before.sha256);
    // by incremental updates: the sealed file is a byte-prefix of the raised one
    const raised = (await storedDocument(envelopeId, "signed"))!.bytes;
    expect(await sha256Hex(raised)).toBe(after.sha256);
    const raisedEntry = (await auditOf(envelopeId)).find((a) => a.action === "document.evidence_raised")!;
    expect(raisedEntry.data).toMatchObject({ from: "B-B", to: "B-LTA", target: "B-LTA", sha256_before: before.sha256, sha256: after.sha256 });

    // the sweep (past its grace) vaults the raised bytes
    const sweep = await autoVaultSweep(jobContextOf(envelopeId, bindings), new Date(Date.now() + 5 * 60_000));
    expect(sweep.vaulted).toContain(envelopeId);
    const record = await vaultRecord(envelopeId);
    expect(record).toMatchObject({ evidence_level: "B-LTA", document_hash: after.sha256 });
    const sigs = await checkSignatures([await authoritative(envelopeId)]);
    expect(sigs.every((s) => s.valid)).toBe(true);
    const cert = await certificateOf(bindings, key, envelopeId);
    expect(cert.document_integrity.evidence_level).toBe("B-LTA");
    expect(cert.document_integrity.evidence_level_target).toBeUndefined();

    // vaulted: the job leaves the authoritative copy alone
    await raiseEvidenceJob(jobContextOf(envelopeId, bindings));
    expect((await vaultRecord(envelopeId))!.document_hash).toBe(after.sha256);
  });

  it("OCSP responder down at completion: the seal reaches B-T, and the job raises it to B-LTA once the responder answers", async () => {
    const bindings = ltEnv({ tsaPath: "evl-ocsp-down", seal: "service-outage" });
    await outage(env.TEST_OCSP_URL, "/ocsp-outage-service", true);
    let envelopeId: string;
    try {
      const done = await complete(bindings, { consent: false });
      envelopeId = done.envelopeId;
      expect(done.submit.status, JSON.stringify(done.submit.body)).toBe(200);
      expect((await signedRow(envelopeId))!.evidence_level).toBe("B-T");
      const completion = (await auditOf(envelopeId)).find((a) => a.action === "envelope.complete")!;
      expect(completion.data).toMatchObject({ evidence_level: "B-T", evidence_level_target: "B-LTA" });
      expect(completion.data.evidence_shortfall).toMatch(/OCSP|revocation/);
    } finally {
      await outage(env.TEST_OCSP_URL, "/ocsp-outage-service", false);
    }
    const run = await raiseEvidenceJob(jobContextOf(envelopeId, bindings));
    expect(run?.raised, JSON.stringify(run)).toContainEqual({ envelopeId, from: "B-T", to: "B-LTA" });
    expect((await signedRow(envelopeId))!.evidence_level).toBe("B-LTA");
    expect(await statusOf(envelopeId)).toBe("completed");
  });

  it("the wait's bound passed: auto-vault vaults at the level reached, and the certificate names the target and why (and keeps saying it when re-issued)", async () => {
    const bindings = { ...ltEnv({ tsaPath: "evl-bound" }), SEAL_EVIDENCE_WAIT_MINUTES: "0" } as Env;
    await outage(env.TEST_TSA_URL, "/tsa/evl-bound", true);
    try {
      const dealer = await party("Dealer");
      const { t, envelopeId, submit } = await complete(bindings, { tenant: dealer });
      expect(submit.status).toBe(200);
      expect(await statusOf(envelopeId)).toBe("vaulted");
      const record = await vaultRecord(envelopeId);
      expect(record).toMatchObject({ evidence_level: "B-B" });
      const cert = await certificateOf(bindings, t.key, envelopeId);
      expect(cert.document_integrity).toMatchObject({ evidence_level: "B-B", evidence_level_target: "B-LTA" });
      expect(cert.document_integrity.evidence_level_reason).toContain("SEAL_EVIDENCE_WAIT_MINUTES");
      // the certificate PDF prints it too
      const pdfKey = (await shardDbOf(envelopeId).prepare("SELECT pdf_key FROM vault_certificates WHERE envelope_id = ?").bind(envelopeId).first<{ pdf_key: string }>())!.pdf_key;
      expect((await env.DOCS.get(pdfKey))).not.toBeNull();
      const hash = record!.document_hash;
      // a change of control re-issues the certificate: the vaulted bytes, and so their level, are unchanged
      await transferred(dealer, record!.id as string, await party("Lender"));
      const latest = await shardDbOf(envelopeId).prepare("SELECT version, body FROM vault_certificates WHERE envelope_id = ? ORDER BY version DESC LIMIT 1").bind(envelopeId).first<{ version: number; body: string }>();
      expect(latest!.version).toBeGreaterThan(1);
      expect(JSON.parse(latest!.body).document_integrity).toEqual(cert.document_integrity);
      // the TSA back, the job does not touch what was vaulted
      await outage(env.TEST_TSA_URL, "/tsa/evl-bound", false);
      await raiseEvidenceJob(jobContextOf(envelopeId, bindings));
      expect(await sha256Hex(await authoritative(envelopeId))).toBe(hash);
    } finally {
      await outage(env.TEST_TSA_URL, "/tsa/evl-bound", false);
    }
  });

  it("a partner's vault-in before the bound vaults at once with the level reached, and says so", async () => {
    const bindings = ltEnv({ tsaPath: "evl-explicit" });
    await outage(env.TEST_TSA_URL, "/tsa/evl-explicit", true);
    try {
      const { t, envelopeId, submit } = await complete(bindings, { consent: false });
      expect(submit.status).toBe(200);
      const vaulted = await callWith(bindings, "POST", `/partner/envelopes/${envelopeId}/vault-in-signed`, { key: t.key, body: {} });
      expect(vaulted.status, JSON.stringify(vaulted.body)).toBe(200);
      expect((await vaultRecord(envelopeId))!.evidence_level).toBe("B-B");
      const cert = await certificateOf(bindings, t.key, envelopeId);
      expect(cert.document_integrity).toMatchObject({ evidence_level: "B-B", evidence_level_target: "B-LTA" });
      expect(cert.document_integrity.evidence_level_reason).toMatch(/on request/);
    } finally {
      await outage(env.TEST_TSA_URL, "/tsa/evl-explicit", false);
    }
  });

  it("the default B-B configuration: level B-B on the document, the record and the certificate, with no target", async () => {
    const { t, envelopeId, submit } = await complete(env);
    expect(submit.status).toBe(200);
    expect((await signedRow(envelopeId))!.evidence_level).toBe("B-B");
    const completion = (await auditOf(envelopeId)).find((a) => a.action === "envelope.complete")!;
    expect(completion.data).toMatchObject({ evidence_level: "B-B", evidence_level_target: "B-B" });
    expect(await statusOf(envelopeId)).toBe("vaulted");
    expect((await vaultRecord(envelopeId))!.evidence_level).toBe("B-B");
    const cert = await certificateOf(env, t.key, envelopeId);
    expect(cert.document_integrity).toEqual({ hash_algorithm: "SHA-256", document_hash: (await vaultRecord(envelopeId))!.document_hash, evidence_level: "B-B" });
    // nothing to raise at B-B
    expect(await raiseEvidenceJob(jobContextOf(envelopeId, env))).toBeNull();
  });
});
