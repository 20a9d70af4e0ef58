import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { generateSealCertificate } from "../../../scripts/lib/seal-cert.mjs";
import { loadSealKey } from "../../../src/pdf";
import { sealPdf } from "../../../src/pdf/seal/seal-pdf";
import { verifyEvidence } from "../../../src/services/evidence/verifier";
import { verifyScript } from "../../../src/services/evidence/verify-script";
import verifierSource from "../../../src/services/evidence/verify.mjs?raw";
import { call, newTenant } from "../../helpers/api";
import { makePdf, sha256Hex } from "../../helpers/pdf";
import { download, paperEnvelope, uploadPaper } from "../../helpers/vault";
import { bundleOf, fingerprint, forge, otherPin, otherSeal, sealedBundle, serviceSeal, servicePin, signManifest, type Files } from "./forge";
import { shardDbOf } from "../../helpers/shards";

const sha = (bytes: Uint8Array) => sha256Hex(bytes);
const enc = (value: string) => new TextEncoder().encode(value);
const dec = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
const verify = (files: Files, pins: string[]) => verifyEvidence(files, sha, { sealSha256: pins });
const brokenOf = async (files: Files, pins: string[]) => {
  const verdict = await verify(files, pins);
  expect(verdict.verified, verdict.verified ? "verified" : verdict.broken).toBe(false);
  return verdict.verified ? "" : verdict.broken;
};

describe("the signed evidence bundle, checked against a pinned seal certificate", () => {
  it("verifies with the service's published fingerprint: the manifest's signature, every file, the chain and the PDF's seal", async () => {
    const t = await newTenant();
    const { files } = await sealedBundle(t.key);
    const pin = await servicePin();
    // the fingerprint is the one GET /api/v2/seal-certificates publishes
    expect((await call("GET", "/seal-certificates")).body.data[0].sha256).toBe(pin);

    const manifest = JSON.parse(dec(files["manifest.json"]));
    expect(manifest).toMatchObject({ seal_certificate: { sha256: pin }, audit_chain: { genesis_hash: "0".repeat(64) }, signature: { file: "manifest.jws", timestamp: null } });
    const listed = manifest.files.map((f: { name: string }) => f.name);
    expect(listed).toEqual(expect.arrayContaining(["document.pdf", "certificate.json", "audit-chain.json", "control-history.json", "attestation.jws", "verify.mjs", "README.md"]));
    for (const f of manifest.files) expect(f.sha256, f.name).toBe(await sha(files[f.name]!));
    const [header, payload] = dec(files["manifest.jws"]).trim().split(".");
    const b64u = (part: string) => Uint8Array.from(atob(part.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    expect(dec(b64u(payload!))).toBe(dec(files["manifest.json"])); // over the exact bytes
    expect(JSON.parse(dec(b64u(header!)))).toMatchObject({ alg: "RS256", typ: "evidence-manifest+jws" });

    const verdict = await verify(files, [pin]);
    expect(verdict, verdict.verified ? "" : verdict.broken).toMatchObject({ verified: true });
    const checks = verdict.checks.join("\n");
    expect(checks).toContain(`manifest.jws (RS256) signs manifest.json byte for byte, by the pinned seal certificate ${pin}`);
    expect(checks).toContain(`document: sealed by the pinned certificate ${pin}: messageDigest = SHA-256 of the byte ranges, signature valid over the signed attributes, the whole document signed`);
    expect(checks).toMatch(/audit chain: \d+ entries verified from the genesis hash to head [0-9a-f]{64}, as the signed manifest states/);
    // openssl's colon form, upper case, is the same pin
    expect(await verify(files, [pin.toUpperCase().match(/../g)!.join(":")])).toMatchObject({ verified: true });
    // the bundle's verify.mjs is that verifier: the committed verify.mjs, byte for byte
    const script = dec(files["verify.mjs"]);
    expect(script).toBe(verifyScript());
    expect(script).toBe(verifierSource);
    expect(script).toContain("export async function verifyEvidence(files, sha256Hex, options = {})");
    expect(script).toContain("--seal-sha256");
  });

  it("refuses without a pin, or with another seal's fingerprint, naming why", async () => {
    const t = await newTenant();
    const { files } = await sealedBundle(t.key);
    expect(await brokenOf(files, [])).toMatch(/^no seal certificate pinned: give the SHA-256 fingerprint/);
    expect(await brokenOf(files, ["abc"])).toBe("--seal-sha256 abc is not a SHA-256 fingerprint (64 hex digits, colons allowed)");
    const other = await otherPin();
    expect(await brokenOf(files, [other])).toBe(`manifest: manifest.jws is signed by certificate SHA-256 ${await servicePin()}, not a pinned seal certificate (${other})`);
  });

  it("refuses a swapped document.pdf, with the manifest recomputed to match or not", async () => {
    const t = await newTenant();
    const { files } = await sealedBundle(t.key);
    const pin = await servicePin();
    const swapped = await makePdf({ pages: 2, text: "A different contract" });
    // just the file replaced: the signed manifest names its hash
    expect(await brokenOf({ ...files, "document.pdf": swapped }, [pin])).toMatch(/^file document\.pdf: SHA-256 [0-9a-f]{64}, but the signed manifest states [0-9a-f]{64} \(the file was altered or replaced\)$/);
    // the manifest recomputed for the new file (but not re-signed: the forger has no seal key)
    const manifest = JSON.parse(dec(files["manifest.json"]));
    manifest.document.sha256 = await sha(swapped);
    manifest.files.find((f: { name: string }) => f.name === "document.pdf").sha256 = await sha(swapped);
    const recomputed = { ...files, "document.pdf": swapped, "manifest.json": enc(JSON.stringify(manifest, null, 2)) };
    expect(await brokenOf(recomputed, [pin])).toBe("manifest: manifest.json is not the manifest manifest.jws signed (manifest.json was rewritten)");
  });

  it("refuses a rewritten manifest: put inside the JWS, its signature no longer verifies", async () => {
    const t = await newTenant();
    const { files } = await sealedBundle(t.key);
    const pin = await servicePin();
    const manifest = JSON.parse(dec(files["manifest.json"]));
    manifest.vault_id = "vlt_someone_elses";
    const rewritten = enc(JSON.stringify(manifest, null, 2));
    const [h, , s] = dec(files["manifest.jws"]).trim().split(".");
    const payload = btoa(String.fromCharCode(...rewritten)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    expect(await brokenOf({ ...files, "manifest.json": rewritten, "manifest.jws": enc(`${h}.${payload}.${s}`) }, [pin])).toBe(
      `manifest: manifest.jws's signature does not verify against its pinned certificate ${pin} (the JWS was altered)`,
    );
  });

  it("refuses an edited chain entry, hashes and manifest recomputed; re-signed by the service's own key it names the entry's lie", async () => {
    const t = await newTenant();
    const { files } = await sealedBundle(t.key);
    const pin = await servicePin();
    const chain = JSON.parse(dec(files["audit-chain.json"]));
    const completed = chain.entries.find((e: { action: string }) => e.action === "signer.completed") ?? chain.entries[1];
    completed.ip_address = "203.0.113.99";
    completed.created_at = "2020-01-01T00:00:00.000Z";
    // the entry edited with nothing recomputed: the chain itself names it
    const manifest = JSON.parse(dec(files["manifest.json"]));
    const editedChain = enc(JSON.stringify(chain));
    manifest.files.find((f: { name: string }) => f.name === "audit-chain.json").sha256 = await sha(editedChain);
    expect(await brokenOf({ ...files, "audit-chain.json": editedChain, "manifest.json": enc(JSON.stringify(manifest)) }, [pin])).toBe(
      "manifest: manifest.json is not the manifest manifest.jws signed (manifest.json was rewritten)",
    );

    // every hash recomputed and the manifest rewritten: a forger cannot sign it
    const forged = await forge(files, await otherSeal(), ({ chain: c }) => {
      c.entries[1].created_at = "2020-01-01T00:00:00.000Z";
    });
    expect(await brokenOf(forged, [pin])).toBe(`manifest: manifest.jws is signed by certificate SHA-256 ${await otherPin()}, not a pinned seal certificate (${pin})`);

    // signed by the service's own key, the deeper checks still stand on their own: an entry that does not hash
    const resigned = await forge(files, await serviceSeal(), () => {});
    expect(await verify(resigned, [pin])).toMatchObject({ verified: true }); // (the forger helper itself changes nothing)
    const lying = JSON.parse(dec(resigned["audit-chain.json"]));
    lying.entries[1].actor_id = "usr_nobody";
    const lyingBytes = enc(JSON.stringify(lying));
    const m = JSON.parse(dec(resigned["manifest.json"]));
    m.files.find((f: { name: string }) => f.name === "audit-chain.json").sha256 = await sha(lyingBytes);
    const mBytes = enc(JSON.stringify(m));
    const broken = await brokenOf({ ...resigned, "audit-chain.json": lyingBytes, "manifest.json": mBytes, "manifest.jws": await signManifest(mBytes, await serviceSeal()) }, [pin]);
    expect(broken).toMatch(new RegExp(`^audit entry seq 2 \\(${lying.entries[1].action.replace(".", "\\.")}, id [^)]+\\): content hashes to [0-9a-f]{64}, not the recorded [0-9a-f]{64} \\(the entry was altered\\)$`));
  });

  it("refuses a bundle re-signed with another key, even one whose PDF and chain were recomputed to match", async () => {
    const t = await newTenant();
    const { files } = await sealedBundle(t.key);
    const pin = await servicePin();
    const other = await otherSeal();
    // the whole bundle re-signed by another seal, the document swapped for one that seal sealed
    const foreignPdf = await sealPdf(await makePdf({ pages: 2, text: "A forged contract" }), other, { signingTime: new Date() });
    const forged = await forge(files, other, ({ files: f }) => {
      f["document.pdf"] = foreignPdf;
    });
    expect(await brokenOf(forged, [pin])).toBe(`manifest: manifest.jws is signed by certificate SHA-256 ${await otherPin()}, not a pinned seal certificate (${pin})`);
    // and had the service's key signed such a manifest, the PDF's seal still names the other certificate
    const sameKey = await forge(files, await serviceSeal(), ({ files: f }) => {
      f["document.pdf"] = foreignPdf;
    });
    expect(await brokenOf(sameKey, [pin])).toBe(`document: its seal was made by certificate ${await otherPin()}, not a pinned seal certificate (${pin})`);
    // a document carrying no seal at all, where the manifest says it was signed through the service
    const unsealed = await forge(files, await serviceSeal(), async ({ files: f }) => {
      f["document.pdf"] = await makePdf({ pages: 2, text: "Never sealed" });
    });
    expect(await brokenOf(unsealed, [pin])).toBe("document: document.pdf carries no seal, but the manifest says it was signed through the service (source signed)");
  });

  it("refuses a sealed PDF whose sealed bytes were changed, naming the seal's digest", async () => {
    const t = await newTenant();
    const { files } = await sealedBundle(t.key);
    const pin = await servicePin();
    const pdf = files["document.pdf"]!.slice();
    pdf[20] = pdf[20] === 0x41 ? 0x42 : 0x41; // inside the first byte range
    const forged = await forge(files, await serviceSeal(), ({ files: f }) => {
      f["document.pdf"] = pdf;
    });
    expect(await brokenOf(forged, [pin])).toMatch(/^document: the seal over bytes 0-\d+ and \d+-\d+: its messageDigest [0-9a-f]{64} is not the SHA-256 of its byte ranges [0-9a-f]{64} \(the sealed bytes were changed\)$/);
  });

  it("checks an ECDSA seal too: an ES256 manifest and an ECDSA CAdES seal, pinned", async () => {
    const t = await newTenant();
    const { files } = await sealedBundle(t.key);
    const generated = await generateSealCertificate({ commonName: "ECDSA seal", algorithm: "ECDSA" });
    const ecdsa = await loadSealKey({ ...env, SEAL_PRIVATE_KEY: generated.privateKeyPem, SEAL_CERTIFICATE: generated.certificatePem });
    const ecdsaPdf = await sealPdf(await makePdf({ pages: 2, text: "ECDSA contract" }), ecdsa, { signingTime: new Date() });
    const forged = await forge(files, ecdsa, ({ files: f }) => {
      f["document.pdf"] = ecdsaPdf;
    });
    const pin = await fingerprint(generated.certificatePem);
    const verdict = await verify(forged, [pin]);
    expect(verdict, verdict.verified ? "" : verdict.broken).toMatchObject({ verified: true });
    expect(verdict.checks.join("\n")).toContain(`manifest.jws (ES256) signs manifest.json byte for byte, by the pinned seal certificate ${pin}`);
    expect(verdict.checks.join("\n")).toContain(`document: sealed by the pinned certificate ${pin}`);
    // one byte of the ECDSA signature value changed: the seal no longer verifies
    const text = new TextDecoder("latin1").decode(ecdsaPdf);
    const r = /\/ByteRange\s*\[\s*0\s+(\d+)/.exec(text)!;
    const cmsHex = text.slice(Number(r[1]) + 1).split(">")[0]!.replace(/0+$/, "");
    const tampered = ecdsaPdf.slice();
    const at = Number(r[1]) + 1 + cmsHex.length - 4; // a hex digit inside the signature value (the CMS's last bytes)
    tampered[at] = tampered[at] === 0x31 ? 0x32 : 0x31;
    const broken = await forge(files, ecdsa, ({ files: f }) => {
      f["document.pdf"] = tampered;
    });
    expect(await brokenOf(broken, [pin])).toMatch(new RegExp(`^document: the seal over bytes 0-\\d+ and \\d+-\\d+: its signature does not verify over its signed attributes with the pinned certificate ${pin}$`));
  });

  it("never serves again a bundle made before manifests were signed: the next request produces a signed one", async () => {
    const t = await newTenant();
    const { envelopeId } = await sealedBundle(t.key);
    const entryOf = async () =>
      (await shardDbOf(envelopeId).prepare("SELECT data FROM audit_log WHERE chain_id = ? AND action = 'vault.evidence_bundle' ORDER BY seq DESC LIMIT 1").bind(envelopeId).first<{ data: string }>())!.data;
    const facts = JSON.parse(await entryOf());
    expect(facts.bundle_version).toBe(3);
    // the same stored bundle recorded as an earlier, unsigned one would be (no bundle_version)
    const { appendEnvelopeAudit } = await import("../../../src/services/envelopes/append-audit");
    const { jobContextOf } = await import("../../helpers/context");
    const { bundle_version: _v, ...unversioned } = facts;
    await appendEnvelopeAudit(jobContextOf(envelopeId), { orgId: t.orgId, envelopeId, actor: { type: "system", id: null }, build: async () => ({ action: "vault.evidence_bundle", data: unversioned, statements: [] }) });
    const files = await bundleOf(t.key, envelopeId);
    const fresh = JSON.parse(await entryOf());
    expect(fresh.bundle_id).not.toBe(facts.bundle_id);
    expect(await verify(files, [await servicePin()])).toMatchObject({ verified: true });
  });

  it("is never produced unsigned: without a usable seal the request is 503 naming the variable and nothing is recorded", async () => {
    const t = await newTenant();
    const e = await paperEnvelope(t.key);
    expect((await uploadPaper(t.key, e.envelope_id, await makePdf({ pages: 1, text: "Wet-ink contract" }))).status).toBe(200);
    const { createEvidenceUrl } = await import("../../../src/services/vault/evidence-bundle");
    const { inOrg, onShardOf, systemContext } = await import("../../../src/lib/context");
    for (const [variable, value] of [["SEAL_PRIVATE_KEY", undefined], ["SEAL_CERTIFICATE", "garbage"]] as const) {
      const ctx = onShardOf(inOrg(systemContext({ ...env, [variable]: value }, () => {}), t.orgId), e.envelope_id);
      const err = (await createEvidenceUrl(ctx, { envelopeId: e.envelope_id, expiresIn: 300 }).catch((x: unknown) => x)) as { status: number; message: string };
      expect(err.status).toBe(503);
      expect(err.message).toContain(variable);
    }
    const recorded = await shardDbOf(e.envelope_id).prepare("SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action = 'vault.evidence_bundle'").bind(e.envelope_id).first<{ n: number }>();
    expect(recorded!.n).toBe(0);
  });

  it("a paper record's bundle is signed too; the verifier says its PDF carries no seal", async () => {
    const t = await newTenant();
    const e = await paperEnvelope(t.key);
    const paper = await makePdf({ pages: 1, text: "Wet-ink contract" });
    expect((await uploadPaper(t.key, e.envelope_id, paper)).status).toBe(200);
    const files = await bundleOf(t.key, e.envelope_id);
    const verdict = await verify(files, [await servicePin()]);
    expect(verdict, verdict.verified ? "" : verdict.broken).toMatchObject({ verified: true });
    expect(verdict.notes.join("\n")).toContain("document.pdf carries no seal of the service: a paper record");
    expect(await brokenOf(files, [await otherPin()])).toMatch(/^manifest: manifest\.jws is signed by certificate SHA-256/);
  });

  it("with SEAL_TSA_URL the manifest's signature is timestamped (manifest.tsr), and a token for another signature is refused", async () => {
    const t = await newTenant();
    const { envelopeId, files: plain } = await sealedBundle(t.key);
    expect(plain["manifest.tsr"]).toBeUndefined();
    const { createEvidenceUrl } = await import("../../../src/services/vault/evidence-bundle");
    const { inOrg, onShardOf, systemContext } = await import("../../../src/lib/context");
    // the chain grows (a re-issued certificate), so the next request produces a fresh bundle, under a TSA
    const { appendEnvelopeAudit } = await import("../../../src/services/envelopes/append-audit");
    const ctx = onShardOf(inOrg(systemContext({ ...env, SEAL_TSA_URL: env.TEST_TSA_URL }, () => {}), t.orgId), envelopeId);
    await appendEnvelopeAudit(ctx, { orgId: t.orgId, envelopeId, actor: { type: "system", id: null }, build: async () => ({ action: "vault.certificate_reissued", data: { reason: "test" }, statements: [] }) });
    const url = await createEvidenceUrl(ctx, { envelopeId, expiresIn: 300 });
    const { unzipSync } = await import("fflate");
    const files = unzipSync((await download(url.signed_url)).bytes);
    expect(files["manifest.tsr"]).toBeDefined();
    expect(JSON.parse(dec(files["manifest.json"])).signature.timestamp).toBe("manifest.tsr");
    const pin = await servicePin();
    const verdict = await verify(files, [pin]);
    expect(verdict, verdict.verified ? "" : verdict.broken).toMatchObject({ verified: true });
    expect(verdict.checks.join("\n")).toMatch(/timestamp: manifest\.tsr \(time \d{14}(\.\d+)?Z\) covers manifest\.jws's signature/);
    // the TSA's signature and certificate path are checked now (issue 33), not left to openssl
    expect(verdict.checks.join("\n")).toMatch(/timestamp: manifest\.tsr: the TSA's signature verifies/);
    // the earlier bundle's token would not do: it covers another signature
    const mixed = { ...plain, "manifest.tsr": files["manifest.tsr"]! };
    expect(await brokenOf(mixed, [pin])).toMatch(/^timestamp: manifest\.tsr's message imprint [0-9a-f]{64} is not the SHA-256 of manifest\.jws's signature [0-9a-f]{64}$/);
  });
});
