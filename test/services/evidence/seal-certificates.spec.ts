import { env } from "cloudflare:test";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { describe, expect, it } from "vitest";
import { sealCertificatesPem } from "../../../src/services/evidence/build-bundle";
import { loadSealKey } from "../../../src/pdf/seal/seal-key";
import { sealPdf } from "../../../src/pdf/seal/seal-pdf";
import { makePdf } from "../../helpers/pdf";

const latin1 = new TextDecoder("latin1");

/** The sealed PDF with its CMS re-written so the signature value (the CMS's last bytes) ends in `lastByte`. */
function withSignatureEndingIn(pdf: Uint8Array, lastByte: number): Uint8Array {
  const text = latin1.decode(pdf);
  const r = /\/ByteRange\s*\[\s*0\s+(\d+)\s+(\d+)/.exec(text)!;
  const start = Number(r[1]) + 1;
  const end = Number(r[2]) - 1;
  const der = Uint8Array.from(text.slice(start, end).match(/../g)!, (h) => parseInt(h, 16));
  const signed = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(der).content });
  const info = signed.signerInfos[0]!;
  expect(info.unsignedAttrs).toBeUndefined(); // so the signature value is the last thing in the CMS
  const value = info.signature.valueBlock.valueHexView.slice();
  value[value.length - 1] = lastByte;
  info.signature = new asn1js.OctetString({ valueHex: value });
  const cms = new Uint8Array(new pkijs.ContentInfo({ contentType: "1.2.840.113549.1.7.2", content: signed.toSchema(true) }).toSchema().toBER(false));
  const hex = Array.from(cms, (b) => b.toString(16).padStart(2, "0")).join("").padEnd(end - start, "0");
  expect(hex.length).toBe(end - start);
  const out = pdf.slice();
  out.set(Uint8Array.from(hex, (ch) => ch.charCodeAt(0)), start);
  return out;
}

describe("the evidence bundle's seal certificate (seal-certificate.pem)", () => {
  it("is read from the seal whatever byte the signature value ends in, padding zeros and all", async () => {
    const sealed = await sealPdf(await makePdf(), await loadSealKey(env), { signingTime: new Date() });
    const expected = sealCertificatesPem(sealed);
    expect(expected).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    // 0x00 looks like padding; 0xa0 ends in a "0" nibble, so stripping "00" pairs would split a byte
    for (const last of [0x00, 0xa0, 0x10, 0xff]) {
      expect(sealCertificatesPem(withSignatureEndingIn(sealed, last)), `last byte ${last.toString(16)}`).toBe(expected);
    }
  });

  it("is absent for a PDF with no seal", async () => {
    expect(sealCertificatesPem(await makePdf())).toBeNull();
  });
});
