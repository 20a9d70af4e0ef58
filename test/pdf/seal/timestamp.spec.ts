import { env } from "cloudflare:test";
import * as pkijs from "pkijs";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/lib/errors";
import { joinParts } from "../../../src/pdf/incremental/parts";
import { loadSealKey } from "../../../src/pdf/seal/seal-key";
import { sealPdf, sealPdfPartsReporting } from "../../../src/pdf/seal/seal-pdf";
import { makePdf } from "../../helpers/pdf";
import { readSeal } from "../../helpers/seal";
import { caCertificate, outage, tsaUrl } from "./evidence-helpers";

const SIGNATURE_TIMESTAMP = "1.2.840.113549.1.9.16.2.14";

function cmsOf(pdf: Uint8Array): pkijs.SignedData {
  const text = new TextDecoder("latin1").decode(pdf);
  const r = /\/ByteRange\s*\[\s*0\s+(\d+)\s+(\d+)/.exec(text)!;
  const hex = text.slice(Number(r[1]) + 1, Number(r[2]) - 1); // padding included: the DER parser stops at the element's end
  return new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16))).content });
}

/** How many timestamps the OpenSSL stand-in granted / refused on a path (its test-side /_stats). */
async function tsaStats(path: string): Promise<{ granted: number; refused: number }> {
  const res = await fetch(`${new URL(env.TEST_TSA_URL).origin}/_stats?path=${encodeURIComponent(`/tsa/${path}`)}`);
  return res.json();
}

describe("the seal's RFC 3161 timestamp (SEAL_TSA_URL), from OpenSSL's `openssl ts -reply`", () => {
  it("carries the authority's token over the signature value, and the seal stays valid", async () => {
    const sealed = await sealPdf(await makePdf(), await loadSealKey(env), { signingTime: new Date(), tsa: { url: tsaUrl("signature-ts") } });
    expect(await tsaStats("signature-ts")).toEqual({ granted: 1, refused: 0 });
    expect(await readSeal(sealed)).toMatchObject({ readerIntegrity: true, pkijsValid: true, coversWholeFile: true });

    const signerInfo = cmsOf(sealed).signerInfos[0]!;
    const attr = signerInfo.unsignedAttrs?.attributes.find((a) => a.type === SIGNATURE_TIMESTAMP);
    expect(attr).toBeDefined();
    const token = new pkijs.SignedData({ schema: new pkijs.ContentInfo({ schema: attr!.values[0] }).content });
    // the certificate was asked for (certReq): OpenSSL includes the TSA's, with the CA's
    expect(token.certificates?.length).toBeGreaterThanOrEqual(1);
    // pkijs checks the token's signature, its TSA certificate's chain up to the test CA, and that its
    // TSTInfo imprint is the SHA-256 of the data given: the seal's signature value
    const data = signerInfo.signature.valueBlock.valueHexView.slice().buffer;
    expect(await token.verify({ signer: 0, checkChain: true, trustedCerts: [caCertificate()], data })).toBe(true);
    const info = pkijs.TSTInfo.fromBER(token.encapContentInfo.eContent!.getValue());
    const imprint = new Uint8Array(await crypto.subtle.digest("SHA-256", signerInfo.signature.valueBlock.valueHexView));
    expect(new Uint8Array(info.messageImprint.hashedMessage.valueBlock.valueHexView)).toEqual(imprint);
  });

  it("sealPdf refuses to seal (502 naming SEAL_TSA_URL) when the authority does not grant a timestamp", async () => {
    await outage(env.TEST_TSA_URL, "/tsa/down-502", true);
    try {
      const err = await sealPdf(await makePdf(), await loadSealKey(env), { signingTime: new Date(), tsa: { url: tsaUrl("down-502") } }).catch((x: unknown) => x);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(502);
      expect((err as ApiError).message).toContain("SEAL_TSA_URL");
      expect(await tsaStats("down-502")).toEqual({ granted: 0, refused: 1 });
    } finally {
      await outage(env.TEST_TSA_URL, "/tsa/down-502", false);
    }
  });

  it("the reporting seal never fails for its TSA: sealed without the timestamp (B-B), and says why", async () => {
    await outage(env.TEST_TSA_URL, "/tsa/down-report", true);
    try {
      const sealed = await sealPdfPartsReporting([await makePdf()], await loadSealKey(env), { signingTime: new Date(), tsa: { url: tsaUrl("down-report") } });
      expect(sealed.level).toBe("B-B");
      expect(sealed.shortfall).toMatch(/^signature timestamp not obtained: .*HTTP 503/);
      const joined = joinParts(sealed.parts);
      expect(await readSeal(joined)).toMatchObject({ readerIntegrity: true, pkijsValid: true, coversWholeFile: true });
      expect(cmsOf(joined).signerInfos[0]!.unsignedAttrs).toBeUndefined();
    } finally {
      await outage(env.TEST_TSA_URL, "/tsa/down-report", false);
    }
  });

  it("is off by default: no timestamp attribute without an authority", async () => {
    const sealed = await sealPdf(await makePdf(), await loadSealKey(env), { signingTime: new Date() });
    expect(cmsOf(sealed).signerInfos[0]!.unsignedAttrs).toBeUndefined();
  });
});
