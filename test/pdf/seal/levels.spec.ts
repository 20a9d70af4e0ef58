import { env } from "cloudflare:test";
import * as pkijs from "pkijs";
import { describe, expect, it } from "vitest";
import { IncrementalPdf } from "../../../src/pdf/incremental/incremental-pdf";
import { joinParts } from "../../../src/pdf/incremental/parts";
import { readDss, vriKey } from "../../../src/pdf/seal/dss";
import { evidenceLevelOf, evidenceOf, raiseEvidence, targetLevel } from "../../../src/pdf/seal/levels";
import { loadSealKey } from "../../../src/pdf/seal/seal-key";
import { raiseSealEvidence, sealWithEvidence } from "../../../src/pdf/seal/seal";
import { sealPdfPartsReporting } from "../../../src/pdf/seal/seal-pdf";
import { readSignatures } from "../../../src/pdf/seal/signatures";
import { makePdf } from "../../helpers/pdf";
import { checkSignatures, ltEnv, ltSealKey, outage, tsaUrl } from "./evidence-helpers";

const signingTime = new Date("2026-03-01T12:00:00Z");
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((x, i) => x === b[i]);

describe("PAdES evidence levels against OpenSSL's TSA and OCSP responder", () => {
  it("targets B-B without a TSA, B-T with one, B-LTA with one and a seal certificate naming its OCSP responder", async () => {
    const selfSigned = await loadSealKey(env);
    const lt = await ltSealKey();
    expect(targetLevel({ sealCertificate: lt.chain[0]! })).toBe("B-B");
    expect(targetLevel({ tsa: tsaUrl("t"), sealCertificate: selfSigned.chain[0]! })).toBe("B-T");
    expect(targetLevel({ tsa: tsaUrl("t"), sealCertificate: lt.chain[0]! })).toBe("B-LTA");
    expect(targetLevel({ tsa: tsaUrl("t"), sealCertificate: (await ltSealKey("crl")).chain[0]! })).toBe("B-LTA");
  });

  it("reads an unsealed file as no level, and the default configuration's seal as B-B", async () => {
    const pdf = await makePdf();
    expect(await evidenceLevelOf([pdf])).toBeNull();
    const sealed = await sealWithEvidence(env, [pdf], { signingTime });
    expect(sealed).toMatchObject({ level: "B-B", target: "B-B" });
    expect(sealed.shortfall).toBeUndefined();
    expect(await evidenceLevelOf(sealed.parts)).toBe("B-B");
  });

  it("B-T: the seal carries OpenSSL's signature timestamp, read back as B-T", async () => {
    const key = await ltSealKey();
    const sealed = await sealPdfPartsReporting([await makePdf()], key, { signingTime, tsa: { url: tsaUrl("b-t") } });
    expect(sealed.level).toBe("B-T");
    const report = await evidenceOf(sealed.parts);
    expect(report).toMatchObject({ level: "B-T", signatureTimestamp: true, documentTimestamps: 0, revocationData: false });
    const [seal] = await checkSignatures(sealed.parts);
    expect(seal).toMatchObject({ subFilter: "ETSI.CAdES.detached", valid: true, wholeFile: true });
  });

  it("B-LT: a /DSS with the chains and the OCSP stand-in's good response for the seal, keyed in /VRI by the seal's /Contents", async () => {
    const key = await ltSealKey();
    const sealed = await sealPdfPartsReporting([await makePdf()], key, { signingTime, tsa: { url: tsaUrl("b-lt") } });
    const raised = await raiseEvidence(sealed.parts, { seal: key, tsa: { url: tsaUrl("b-lt") }, target: "B-LT" });
    expect(raised).toEqual({ parts: expect.any(Array), level: "B-LT" });
    expect(await evidenceLevelOf(raised.parts)).toBe("B-LT");
    // the sealed revision is untouched and its seal still valid over the whole of it
    expect(sameBytes(joinParts(raised.parts).subarray(0, joinParts(sealed.parts).byteLength), joinParts(sealed.parts))).toBe(true);
    const [seal] = await checkSignatures(raised.parts);
    expect(seal!.valid).toBe(true);

    const dss = readDss(await IncrementalPdf.open(raised.parts));
    const certs = dss.certs.map((d) => pkijs.Certificate.fromBER(d));
    const names = certs.map((c) => (c.subject.typesAndValues.find((t) => t.type === "2.5.4.3")!.value.valueBlock as { value: string }).value);
    expect(names).toEqual(expect.arrayContaining(["esign-vault test LT seal", "esign-vault test root CA (throwaway)", "esign-vault test TSA", "esign-vault test OCSP responder"]));
    // OCSP responses for the seal and for the TSA certificate, signed by the delegated responder, status good
    expect(dss.ocsps.length).toBe(2);
    const ocsp = pkijs.BasicOCSPResponse.fromBER(pkijs.OCSPResponse.fromBER(dss.ocsps[0]!).responseBytes!.response.valueBlock.valueHexView);
    const status = await ocsp.getCertificateStatus(key.chain[0]!, key.chain[1]!);
    expect(status).toEqual({ isForCertificate: true, status: 0 });
    const [sig] = await readSignatures(raised.parts);
    const vri = dss.vri.get(await vriKey(sig!.contents));
    expect(vri?.ocsps).toHaveLength(1);
  });

  it("B-LTA: seal, DSS and a document timestamp over it all; the seal valid for its revision, the timestamp's imprint its byte ranges'", async () => {
    const sealed = await sealWithEvidence(ltEnv({ tsaPath: "b-lta" }), [await makePdf({ pages: 3 })], { signingTime });
    expect(sealed).toMatchObject({ level: "B-LTA", target: "B-LTA" });
    expect(sealed.shortfall).toBeUndefined();
    expect(await evidenceOf(sealed.parts)).toEqual({ level: "B-LTA", signatureTimestamp: true, documentTimestamps: 1, revocationData: true });

    const file = joinParts(sealed.parts);
    const checks = await checkSignatures(sealed.parts);
    expect(checks.map((c) => c.subFilter)).toEqual(["ETSI.CAdES.detached", "ETSI.RFC3161"]);
    const [seal, docTs] = checks;
    expect(seal).toMatchObject({ valid: true, wholeFile: false });
    expect(seal!.covers).toBeLessThan(file.byteLength);
    expect(docTs).toMatchObject({ type: "DocTimeStamp", valid: true, imprintMatches: true, wholeFile: true });
    expect(Math.abs(docTs!.genTime!.getTime() - Date.now())).toBeLessThan(10 * 60_000);
    // the DSS was in place before the document timestamp's revision
    expect(new TextDecoder("latin1").decode(file.subarray(0, docTs!.covers)).indexOf("/DSS")).toBeGreaterThan(seal!.covers);
  });

  it("B-LTA with a seal certificate naming only a CRL: the CA's CRL goes into the DSS", async () => {
    const sealed = await sealWithEvidence(ltEnv({ tsaPath: "crl", seal: "crl" }), [await makePdf()], { signingTime });
    expect(sealed).toMatchObject({ level: "B-LTA", target: "B-LTA" });
    const dss = readDss(await IncrementalPdf.open(sealed.parts));
    expect(dss.crls).toHaveLength(1);
    const crl = pkijs.CertificateRevocationList.fromBER(dss.crls[0]!);
    expect(crl.revokedCertificates ?? []).toHaveLength(0);
  });

  it("TSA down: the seal is made at B-B with the reason, nothing thrown; once the TSA is back it is raised to B-LTA", async () => {
    await outage(env.TEST_TSA_URL, "/tsa/levels-tsa-outage", true);
    const lteEnv = ltEnv({ tsaPath: "levels-tsa-outage" });
    const original = await makePdf();
    let sealed;
    try {
      sealed = await sealWithEvidence(lteEnv, [original], { signingTime });
      expect(sealed).toMatchObject({ level: "B-B", target: "B-LTA" });
      expect(sealed.shortfall).toMatch(/timestamp/i);
      expect(sealed.shortfall).toContain("503");
      expect(await evidenceLevelOf(sealed.parts)).toBe("B-B");
      expect((await checkSignatures(sealed.parts))[0]).toMatchObject({ valid: true, wholeFile: true });
      // still down: raising stays at B-B, says why, and adds nothing
      const again = await raiseSealEvidence(lteEnv, sealed.parts);
      expect(again).toMatchObject({ level: "B-B", shortfall: expect.stringMatching(/timestamp/i) });
      expect(again.parts).toHaveLength(sealed.parts.length);
    } finally {
      await outage(env.TEST_TSA_URL, "/tsa/levels-tsa-outage", false);
    }
    const raised = await raiseSealEvidence(lteEnv, sealed.parts);
    expect(raised).toMatchObject({ level: "B-LTA", target: "B-LTA" });
    expect(raised.shortfall).toBeUndefined();
    expect(await evidenceOf(raised.parts)).toEqual({ level: "B-LTA", signatureTimestamp: false, documentTimestamps: 2, revocationData: true });
    // the sealed file is a prefix of the raised one: earlier revisions byte-identical
    const before = joinParts(sealed.parts);
    expect(sameBytes(joinParts(raised.parts).subarray(0, before.byteLength), before)).toBe(true);
    const checks = await checkSignatures(raised.parts);
    expect(checks.map((c) => [c.subFilter, c.valid])).toEqual([["ETSI.CAdES.detached", true], ["ETSI.RFC3161", true], ["ETSI.RFC3161", true]]);
    expect(checks.at(-1)!.wholeFile).toBe(true);
  });

  it("OCSP down: the seal reaches B-T and says the responder failed; once it answers again it is raised to B-LTA", async () => {
    await outage(env.TEST_OCSP_URL, "/ocsp-outage", true);
    const outageEnv = ltEnv({ tsaPath: "levels-ocsp-outage", seal: "outage" });
    let sealed;
    try {
      sealed = await sealWithEvidence(outageEnv, [await makePdf()], { signingTime });
      expect(sealed).toMatchObject({ level: "B-T", target: "B-LTA" });
      expect(sealed.shortfall).toMatch(/OCSP responder .*ocsp-outage.* 503/);
      expect(await evidenceLevelOf(sealed.parts)).toBe("B-T");
    } finally {
      await outage(env.TEST_OCSP_URL, "/ocsp-outage", false);
    }
    const raised = await raiseSealEvidence(outageEnv, sealed.parts);
    expect(raised).toMatchObject({ level: "B-LTA", target: "B-LTA" });
    expect(raised.shortfall).toBeUndefined();
    expect(await evidenceLevelOf(raised.parts)).toBe("B-LTA");
    const checks = await checkSignatures(raised.parts);
    expect(checks.every((c) => c.valid)).toBe(true);
    expect(checks.at(-1)).toMatchObject({ subFilter: "ETSI.RFC3161", wholeFile: true, imprintMatches: true });
  });

  it("a seal whose certificate names no OCSP or CRL stops at B-T with the reason when B-LTA is asked", async () => {
    const key = await loadSealKey(env);
    const sealed = await sealPdfPartsReporting([await makePdf()], key, { signingTime, tsa: { url: tsaUrl("no-aia") } });
    const raised = await raiseEvidence(sealed.parts, { seal: key, tsa: { url: tsaUrl("no-aia") }, target: "B-LTA" });
    expect(raised).toMatchObject({ level: "B-T", shortfall: "the seal certificate names no OCSP responder or CRL" });
  });

  it("raising validates the certificate that made the file's seal, even after the configured key changed", async () => {
    const sealed = await sealPdfPartsReporting([await makePdf()], await ltSealKey(), { signingTime, tsa: { url: tsaUrl("rotated") } });
    const raised = await raiseEvidence(sealed.parts, { seal: await loadSealKey(env), tsa: { url: tsaUrl("rotated") }, target: "B-LTA" });
    expect(raised).toEqual({ parts: expect.any(Array), level: "B-LTA" });
    const dss = readDss(await IncrementalPdf.open(raised.parts));
    const lt = await ltSealKey();
    const ocsp = pkijs.BasicOCSPResponse.fromBER(pkijs.OCSPResponse.fromBER(dss.ocsps[0]!).responseBytes!.response.valueBlock.valueHexView);
    expect(await ocsp.getCertificateStatus(lt.chain[0]!, lt.chain[1]!)).toEqual({ isForCertificate: true, status: 0 });
  });

  it("a one-byte change after B-LTA breaks the seal and the document timestamp", async () => {
    const sealed = await sealWithEvidence(ltEnv({ tsaPath: "tamper" }), [await makePdf({ objectStreams: false })], { signingTime });
    const file = joinParts(sealed.parts).slice();
    const at = new TextDecoder("latin1").decode(file).indexOf("/Title <") + "/Title <".length + 3;
    file[at] = file[at] === 0x30 ? 0x31 : 0x30;
    const checks = await checkSignatures([file]);
    expect(checks.find((c) => c.subFilter === "ETSI.CAdES.detached")!.valid).toBe(false);
    expect(checks.find((c) => c.subFilter === "ETSI.RFC3161")!.imprintMatches).toBe(false);
  });
});
