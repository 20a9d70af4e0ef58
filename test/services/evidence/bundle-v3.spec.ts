import { env } from "cloudflare:test";
import { unzipSync } from "fflate";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { loadSealKey } from "../../../src/pdf";
import { sealPdf } from "../../../src/pdf/seal/seal-pdf";
import { inOrg, onShardOf, systemContext } from "../../../src/lib/context";
import { verifyEvidence } from "../../../src/services/evidence/verifier";
import { publishedVerifier } from "../../../src/services/evidence/verify-script";
import { appendEnvelopeAudit } from "../../../src/services/envelopes/append-audit";
import { createEvidenceUrl } from "../../../src/services/vault/evidence-bundle";
import { ALL_SCOPES, call, newTenant, operator } from "../../helpers/api";
import { makeControlKey, recordSignature, registerControlKey } from "../../helpers/control-keys";
import { makePdf, sha256Hex } from "../../helpers/pdf";
import { completedEnvelope, download, vaultRecord } from "../../helpers/vault";
import { globalDb } from "../../helpers/shards";
import { fingerprint, serviceSeal, servicePin, signManifest, type Files } from "./forge";

// Issue 33 (docs/control.md): bundles by role, the control-key history, pinned timestamps, the verifier
// published, the evidence record over every member.

const dec = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
const party = (name: string) => newTenant({ scopes: [...ALL_SCOPES, "vault:control"], name });
const sealedPdf = async () => sealPdf(await makePdf({ pages: 2, text: "Signed contract" }), await loadSealKey(env), { signingTime: new Date() });
const verify = async (files: Files, tsaSha256: string[] = []) => verifyEvidence(files, sha256Hex, { sealSha256: [await servicePin()], tsaSha256 });

async function vaulted(a: { key: string }) {
  const e = await completedEnvelope(a.key, {}, await sealedPdf());
  const res = await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: a.key, body: {} });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { envelopeId: e.envelope_id as string, vaultId: res.body.data.vault_id as string };
}

async function bundleFor(key: string, vaultId: string): Promise<Files> {
  const res = await call("GET", `/partner/vault/${vaultId}/evidence/signed-url`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const file = await download(res.body.data.signed_url);
  expect(file.status).toBe(200);
  return unzipSync(file.bytes);
}

const latin1 = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes);

/** The AC's bytes occur in no member, and no prefix of any member ending at a revision's end hashes to the AC's SHA-256. */
async function expectNoAuthoritativeBytes(files: Files, ac: Uint8Array, documentHash: string) {
  expect(files["document.pdf"]).toBeUndefined();
  const needle = latin1(ac);
  for (const [name, bytes] of Object.entries(files)) {
    expect(latin1(bytes).includes(needle), name).toBe(false);
    const text = latin1(bytes);
    for (let at = text.indexOf("%%EOF"); at >= 0; at = text.indexOf("%%EOF", at + 5)) {
      for (const end of [at + 5, at + 6, at + 7]) if (end <= bytes.length) expect(await sha256Hex(bytes.subarray(0, end)), name).not.toBe(documentHash);
    }
  }
}

/** A re-serialized, copy-sealed marked copy, as copies are now made (docs/control.md): a fresh PDF naming the AC's hash, sealed. */
async function reserializedCopy(documentHash: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([300, 300]).drawText(`NON-AUTHORITATIVE COPY of ${documentHash}`, { x: 10, y: 150, size: 4 });
  doc.setSubject(`NON-AUTHORITATIVE COPY of ${documentHash}`);
  return sealPdf(await doc.save({ useObjectStreams: false }), await loadSealKey(env), { signingTime: new Date() });
}

describe("bundles by role: the authoritative copy is the controller's alone", () => {
  it("an organization only offered a transfer, the originator after selling, and everyone after paper-out get copy.pdf and the AC's hash, never its bytes; the controller gets document.pdf; the verifier accepts both forms", async () => {
    const [a, b] = await Promise.all([party("Dealer"), party("Bank")]);
    const { envelopeId, vaultId } = await vaulted(a);
    const record = (await vaultRecord(envelopeId))!;
    const ac = new Uint8Array(await (await env.DOCS.get(record.authoritative_key))!.arrayBuffer());
    // the marked copy as now made: re-serialized and sealed as a copy
    await env.DOCS.put(record.copy_key, await reserializedCopy(record.document_hash));

    const offer = await call("POST", `/partner/vault/${vaultId}/transfers`, { key: a.key, body: { kind: "assignment", to_org_id: b.orgId } });
    expect(offer.status).toBe(201);
    // the controller (the originator, before selling): the authoritative form
    const controller = await bundleFor(a.key, vaultId);
    expect(await sha256Hex(controller["document.pdf"]!)).toBe(record.document_hash);
    expect(JSON.parse(dec(controller["manifest.json"]))).toMatchObject({ bundle_version: 3, form: "authoritative", copy: null });
    const acVerdict = await verify(controller);
    expect(acVerdict, acVerdict.verified ? "" : acVerdict.broken).toMatchObject({ verified: true });

    // only offered: the copy form
    const offered = await bundleFor(b.key, vaultId);
    await expectNoAuthoritativeBytes(offered, ac, record.document_hash);
    expect(JSON.parse(dec(offered["manifest.json"]))).toMatchObject({ form: "copy", document: { file: null, sha256: record.document_hash }, copy: { file: "copy.pdf", of_document_sha256: record.document_hash } });
    const copyVerdict = await verify(offered);
    expect(copyVerdict, copyVerdict.verified ? "" : copyVerdict.broken).toMatchObject({ verified: true });
    expect(copyVerdict.checks.join("\n")).toContain(`copy: sealed as a copy by the pinned certificate ${await servicePin()}, its signed bytes naming the authoritative copy's SHA-256 ${record.document_hash}`);

    // the originator after selling
    expect((await call("POST", `/partner/vault/transfers/${offer.body.data.transfer_id}/accept`, { key: b.key })).status).toBe(200);
    const sold = await bundleFor(a.key, vaultId);
    await expectNoAuthoritativeBytes(sold, ac, record.document_hash);
    expect((await verify(sold)).verified).toBe(true);
    expect((await bundleFor(b.key, vaultId))["document.pdf"]).toBeDefined();

    // after paper-out, no one
    expect((await call("POST", `/partner/vault/${vaultId}/paper-out`, { key: b.key, body: { reason: "printed for the court" } })).status).toBe(200);
    for (const p of [a, b]) {
      const files = await bundleFor(p.key, vaultId);
      await expectNoAuthoritativeBytes(files, ac, record.document_hash);
      expect((await verify(files)).verified).toBe(true);
    }
  });

  it("a copy stored as an incremental update over the authoritative copy (made before copies were re-serialized) is made again before it goes into a non-controller's bundle", async () => {
    const [a, b] = await Promise.all([party("Dealer"), party("Bank")]);
    const { envelopeId, vaultId } = await vaulted(a);
    const record = (await vaultRecord(envelopeId))!;
    const ac = new Uint8Array(await (await env.DOCS.get(record.authoritative_key))!.arrayBuffer());
    // an old-style copy: the AC with an update appended, no copy_format mark
    await env.DOCS.put(record.copy_key, new Uint8Array([...ac, ...new TextEncoder().encode("\n% appended update\n%%EOF\n")]));
    expect((await call("POST", `/partner/vault/${vaultId}/transfers`, { key: a.key, body: { kind: "assignment", to_org_id: b.orgId } })).status).toBe(201);
    const files = await bundleFor(b.key, vaultId);
    expect(files["copy.pdf"]).toBeDefined();
    await expectNoAuthoritativeBytes(files, ac, record.document_hash);
    const verdict = await verify(files);
    expect(verdict, verdict.verified ? "" : verdict.broken).toMatchObject({ verified: true });
  });
});

describe("the control-key history: the service cannot move a keyed organization's records unseen", () => {
  it("the certificate a move issues judges the move against the organizations' keys in the global database, as the live evaluation does", async () => {
    // names and control keys are global rows; a control step's certificate once read them from the record's shard
    // (where those tables are empty), so its check 5 never saw a key, nor an operator recovery
    const [a, b] = await Promise.all([party("Dealer"), party("Bank")]);
    expect((await registerControlKey(a.key, await makeControlKey("EdDSA"))).status).toBe(201);
    const { envelopeId, vaultId } = await vaulted(a);
    expect((await operator("DELETE", `/orgs/${a.orgId}/control-keys`)).status).toBe(200);
    // A's next move is unsigned: allowed after the recovery, and said in check 5
    const offer = await call("POST", `/partner/vault/${vaultId}/transfers`, { key: a.key, body: { kind: "assignment", to_org_id: b.orgId } });
    expect(offer.status, JSON.stringify(offer.body)).toBe(201);
    const accepted = await call("POST", `/partner/vault/transfers/${offer.body.data.transfer_id}/accept`, { key: b.key, body: {} });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const checkOf = (checks: { requirement: string; detail: string }[]) => checks.find((c) => c.requirement === "controlled_amendments")!.detail;
    const cert = await call("GET", `/partner/envelopes/${envelopeId}/vault/certificate`, { key: a.key });
    expect(cert.status, JSON.stringify(cert.body)).toBe(200);
    expect(checkOf(cert.body.data.ucc_9105_compliance.checks)).toMatch(/1 unsigned move\(s\) after an operator recovery of the organization's keys/);
    const live = await call("GET", `/partner/envelopes/${envelopeId}/compliance`, { key: a.key });
    expect(live.status, JSON.stringify(live.body)).toBe(200);
    expect(checkOf(cert.body.data.ucc_9105_compliance.checks)).toBe(checkOf(live.body.data.compliance.checks));
  });

  it("verifies each signed move against the keys held then, names an operator recovery, and fails a move by an organization that held a key but did not sign", async () => {
    const [a, b] = await Promise.all([party("Dealer"), party("Bank")]);
    const keyA = await makeControlKey("EdDSA");
    const keyB = await makeControlKey("ES256");
    expect((await registerControlKey(a.key, keyA)).status).toBe(201);
    const { vaultId } = await vaulted(a);
    const offerBody = { kind: "assignment", to_org_id: b.orgId };
    const signed = await recordSignature(keyA, a.key, { vault_id: vaultId, action: "transfer", body: offerBody });
    const offer = await call("POST", `/partner/vault/${vaultId}/transfers`, { key: a.key, body: offerBody, headers: { "Control-Signature": signed } });
    expect(offer.status, JSON.stringify(offer.body)).toBe(201);
    let verdict = await verify(await bundleFor(a.key, vaultId));
    expect(verdict, verdict.verified ? "" : verdict.broken).toMatchObject({ verified: true });
    expect(verdict.checks.join("\n")).toContain("control keys: 1 move(s) by organizations holding control keys carry a valid Control-Signature");

    // the operator recovers A: A's next move is unsigned, and the bundle names the recovery
    expect((await operator("DELETE", `/orgs/${a.orgId}/control-keys`)).status).toBe(200);
    expect((await call("POST", `/partner/vault/transfers/${offer.body.data.transfer_id}/cancel`, { key: a.key })).status).toBe(200);
    const afterRecovery = await bundleFor(a.key, vaultId);
    const keyHistory = JSON.parse(dec(afterRecovery["key-history.json"]));
    expect(keyHistory.organizations.find((o: { org_id: string }) => o.org_id === a.orgId).events.map((e: { action: string }) => e.action)).toEqual(["control_key.added", "control_key.recovered"]);
    verdict = await verify(afterRecovery);
    expect(verdict.verified).toBe(true);
    expect(verdict.notes.join("\n")).toMatch(new RegExp(`key history: the operator removed every control key of organization ${a.orgId} at .* \\(recovery by operator`));
    expect(verdict.notes.join("\n")).toMatch(/unsigned, made after the operator removed the organization's control keys/);

    // B registers a key; its key is then removed without any recorded step (not a recovery): its unsigned accept fails the rule
    expect((await registerControlKey(b.key, keyB)).status).toBe(201);
    const again = await call("POST", `/partner/vault/${vaultId}/transfers`, { key: a.key, body: { kind: "assignment", to_org_id: b.orgId } });
    expect(again.status).toBe(201);
    await globalDb.prepare("DELETE FROM control_keys WHERE org_id = ?").bind(b.orgId).run();
    expect((await call("POST", `/partner/vault/transfers/${again.body.data.transfer_id}/accept`, { key: b.key })).status).toBe(200);
    verdict = await verify(await bundleFor(b.key, vaultId));
    expect(verdict.verified).toBe(false);
    expect(verdict.verified ? "" : verdict.broken).toMatch(new RegExp(`^control signature: audit entry seq \\d+ \\(vault.control_transferred\\) by ${b.orgId}: the organization held control key\\(s\\) ${keyB.kid} at .*, but the move carries no Control-Signature`));
    // compliance check 5 says so too
    const compliance = await call("GET", `/partner/vault/${vaultId}`, { key: b.key });
    expect(compliance.body.data.compliance.compliant).toBe(false);
  });
});

/** A timestamp token over `imprint` (hex) from a home-made "CN=Evil TSA": valid in itself, from nobody anyone trusts. */
async function evilToken(imprint: string): Promise<Uint8Array> {
  const keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const cert = new pkijs.Certificate();
  cert.version = 2;
  cert.serialNumber = new asn1js.Integer({ value: 1 });
  const name = (n: pkijs.RelativeDistinguishedNames) => n.typesAndValues.push(new pkijs.AttributeTypeAndValue({ type: "2.5.4.3", value: new asn1js.Utf8String({ value: "Evil TSA" }) }));
  name(cert.issuer);
  name(cert.subject);
  cert.notBefore.value = new Date(Date.now() - 86400_000);
  cert.notAfter.value = new Date(Date.now() + 86400_000);
  await cert.subjectPublicKeyInfo.importKey(keys.publicKey);
  await cert.sign(keys.privateKey, "SHA-256");
  const tst = new pkijs.TSTInfo({
    version: 1,
    policy: "1.2.3.4.1",
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: "2.16.840.1.101.3.4.2.1" }),
      hashedMessage: new asn1js.OctetString({ valueHex: Uint8Array.from(imprint.match(/../g)!, (h) => parseInt(h, 16)) }),
    }),
    serialNumber: new asn1js.Integer({ value: 7 }),
    genTime: new Date(),
  });
  const signed = new pkijs.SignedData({
    version: 3,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: "1.2.840.113549.1.9.16.1.4", eContent: new asn1js.OctetString({ valueHex: tst.toSchema().toBER(false) }) }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({ type: "1.2.840.113549.1.9.3", values: [new asn1js.ObjectIdentifier({ value: "1.2.840.113549.1.9.16.1.4" })] }),
            new pkijs.Attribute({ type: "1.2.840.113549.1.9.4", values: [new asn1js.OctetString({ valueHex: await crypto.subtle.digest("SHA-256", tst.toSchema().toBER(false)) })] }),
          ],
        }),
      }),
    ],
    certificates: [cert],
  });
  await signed.sign(keys.privateKey, 0, "SHA-256");
  return new Uint8Array(new pkijs.ContentInfo({ contentType: "1.2.840.113549.1.7.2", content: signed.toSchema(true) }).toSchema().toBER(false));
}

describe("the verifier trusts nothing unpinned", () => {
  async function timestampedBundle() {
    const t = await newTenant();
    const { envelopeId } = await vaulted(t);
    const ctx = onShardOf(inOrg(systemContext({ ...env, SEAL_TSA_URL: env.TEST_TSA_URL }, () => {}), t.orgId), envelopeId);
    await appendEnvelopeAudit(ctx, { orgId: t.orgId, envelopeId, actor: { type: "system", id: null }, build: async () => ({ action: "vault.certificate_reissued", data: { reason: "issue 33" }, statements: [] }) });
    const url = await createEvidenceUrl(ctx, { envelopeId, expiresIn: 300 });
    return unzipSync((await download(url.signed_url)).bytes);
  }

  it("checks the TSA's signature and path: pinned it verifies; unpinned it says so (exit 3); an Evil TSA's token fails the pin; produced_at is reported", async () => {
    const files = await timestampedBundle();
    const tsaPin = await fingerprint(env.TEST_PKI_CA_CERTIFICATE);
    const manifest = JSON.parse(dec(files["manifest.json"]));
    const pinned = await verify(files, [tsaPin]);
    expect(pinned, pinned.verified ? "" : pinned.broken).toMatchObject({ verified: true, timestamps: "pinned", producedAt: manifest.produced_at });
    expect(pinned.attestedAt).toMatch(/^\d{4}-/);
    expect(pinned.checks.join("\n")).toMatch(/timestamp: manifest.tsr: the TSA's signature verifies .*, pinned by /);
    expect(await verify(files)).toMatchObject({ verified: true, timestamps: "unpinned" });

    // manifest.tsr swapped for a home-made TSA's token over the very same signature
    const jwsSignature = dec(files["manifest.jws"]).trim().split(".")[2]!;
    const signatureBytes = Uint8Array.from(atob(jwsSignature.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (jwsSignature.length % 4)) % 4)), (c) => c.charCodeAt(0));
    const evil = { ...files, "manifest.tsr": await evilToken(await sha256Hex(signatureBytes)) };
    const refused = await verify(evil, [tsaPin]);
    expect(refused.verified).toBe(false);
    expect(refused.verified ? "" : refused.broken).toMatch(/^timestamp: manifest.tsr: issued by TSA Evil TSA .* holds no pinned TSA certificate/);
    expect(await verify(evil)).toMatchObject({ verified: true, timestamps: "unpinned" });
    // a token whose TSTInfo was altered after signing
    const tsr = files["manifest.tsr"]!.slice();
    const at = latin1(tsr).lastIndexOf("Z") - 2;
    tsr[at] = tsr[at] === 0x31 ? 0x32 : 0x31;
    expect((await verify({ ...files, "manifest.tsr": tsr }, [tsaPin])).verified).toBe(false);
    // verify.mjs itself, run by Node on such a bundle (exit 3, 0 with the pin, 1 with the Evil TSA's
    // token): verify-under-node.spec.ts
  });

  it("the evidence record's reduced hash tree covers every member the manifest covers", async () => {
    const files = await timestampedBundle();
    const manifest = JSON.parse(dec(files["manifest.json"]));
    expect(manifest.evidence_record).toMatchObject({ file: "evidence-record.ers", covers: "members" });
    const verdict = await verify(files, [await fingerprint(env.TEST_PKI_CA_CERTIFICATE)]);
    expect(verdict, verdict.verified ? "" : verdict.broken).toMatchObject({ verified: true });
    const members = manifest.files.map((f: { name: string }) => f.name).filter((n: string) => n !== "evidence-record.ers");
    expect(members).toEqual(expect.arrayContaining(["document.pdf", "certificate.json", "audit-chain.json", "control-history.json", "key-history.json"]));
    expect(verdict.checks.join("\n")).toContain(`covers, by its reduced hash tree, every member the manifest lists (${members.join(", ")})`);
  });

  it("in a non-controller's bundle the evidence record's hash tree covers copy.pdf and every other member; a listed member outside the tree is refused", async () => {
    const [a, b] = await Promise.all([party("Dealer"), party("Bank")]);
    const { envelopeId, vaultId } = await vaulted(a);
    const offer = await call("POST", `/partner/vault/${vaultId}/transfers`, { key: a.key, body: { kind: "assignment", to_org_id: b.orgId } });
    expect(offer.status).toBe(201);
    expect((await call("POST", `/partner/vault/transfers/${offer.body.data.transfer_id}/accept`, { key: b.key })).status).toBe(200);
    // the originator after selling, with the timestamp authority configured: the copy form
    const ctx = onShardOf(inOrg(systemContext({ ...env, SEAL_TSA_URL: env.TEST_TSA_URL }, () => {}), a.orgId), envelopeId);
    const files = unzipSync((await download((await createEvidenceUrl(ctx, { envelopeId, expiresIn: 300 })).signed_url)).bytes);
    const manifest = JSON.parse(dec(files["manifest.json"]));
    expect(manifest).toMatchObject({ form: "copy", evidence_record: { file: "evidence-record.ers", covers: "members" } });
    const members = manifest.files.map((f: { name: string }) => f.name).filter((n: string) => n !== "evidence-record.ers");
    expect(members).toEqual(expect.arrayContaining(["copy.pdf", "certificate.json", "audit-chain.json", "control-history.json", "key-history.json"]));
    expect(members).not.toContain("document.pdf");
    const tsaPin = await fingerprint(env.TEST_PKI_CA_CERTIFICATE);
    const verdict = await verify(files, [tsaPin]);
    expect(verdict, verdict.verified ? "" : verdict.broken).toMatchObject({ verified: true });
    expect(verdict.checks.join("\n")).toContain(`covers, by its reduced hash tree, every member the manifest lists (${members.join(", ")})`);

    // the tree is checked, not taken on trust: a manifest (re-signed by the service's own seal) listing
    // one more member than the tree holds is refused, naming the member
    const extra = new TextEncoder().encode("a member the evidence record never saw\n");
    const widened = { ...manifest, signature: { ...manifest.signature, timestamp: null }, files: [...manifest.files, { name: "extra.txt", sha256: await sha256Hex(extra), size_bytes: extra.byteLength }] };
    const manifestBytes = new TextEncoder().encode(JSON.stringify(widened, null, 2));
    const { ["manifest.tsr"]: _token, ...untimestamped } = files;
    const forged = { ...untimestamped, "extra.txt": extra, "manifest.json": manifestBytes, "manifest.jws": await signManifest(manifestBytes, await serviceSeal()) };
    const refused = await verify(forged, [tsaPin]);
    expect(refused.verified ? "" : refused.broken).toBe("evidence record: its reduced hash tree does not cover extra.txt");
  });

  it("GET /api/v2/evidence/verifier publishes the script every bundle carries and its SHA-256", async () => {
    const published = await publishedVerifier();
    const res = await call("GET", "/evidence/verifier");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sha256: published.sha256, filename: "verify.mjs" });
    const raw = await call("GET", "/evidence/verifier?format=raw");
    expect(raw.status).toBe(200);
    expect(raw.headers.get("etag")).toBe(`"${published.sha256}"`);
    const t = await newTenant();
    const { vaultId } = await vaulted(t);
    expect(await sha256Hex((await bundleFor(t.key, vaultId))["verify.mjs"]!)).toBe(published.sha256);
  });
});
