import { env } from "cloudflare:test";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/lib/errors";
import { loadSealKey } from "../../../src/pdf/seal/seal-key";
import { sealPdf } from "../../../src/pdf/seal/seal-pdf";
import { makePdf } from "../../helpers/pdf";
import { readSeal } from "../../helpers/seal";

const TST_INFO = "1.2.840.113549.1.9.16.1.4";
const SIGNATURE_TIMESTAMP = "1.2.840.113549.1.9.16.2.14";

/** A timestamp authority in the test: a self-signed TSA certificate and RFC 3161 answers made with pkijs. */
async function timestampAuthority(opts: { status?: number } = {}) {
  const keys = (await crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const cert = new pkijs.Certificate();
  cert.version = 2;
  cert.serialNumber = new asn1js.Integer({ value: 7 });
  const cn = () => new pkijs.AttributeTypeAndValue({ type: "2.5.4.3", value: new asn1js.Utf8String({ value: "Test TSA" }) });
  cert.subject.typesAndValues.push(cn());
  cert.issuer.typesAndValues.push(cn());
  cert.notBefore.value = new Date(Date.now() - 86400_000);
  cert.notAfter.value = new Date(Date.now() + 86400_000);
  await cert.subjectPublicKeyInfo.importKey(keys.publicKey);
  cert.extensions = [new pkijs.Extension({ extnID: "2.5.29.37", critical: true, extnValue: new pkijs.ExtKeyUsage({ keyPurposes: ["1.3.6.1.5.5.7.3.8"] }).toSchema().toBER(false) })];
  await cert.sign(keys.privateKey, "SHA-256");
  const requests: pkijs.TimeStampReq[] = [];

  const fetcher = (async (_url: string, init: RequestInit) => {
    const req = pkijs.TimeStampReq.fromBER(new Uint8Array(init.body as ArrayBuffer));
    requests.push(req);
    if (opts.status !== undefined) return new Response("no", { status: opts.status });
    const info = new pkijs.TSTInfo({
      version: 1,
      policy: "1.3.6.1.4.1.99999.1",
      messageImprint: req.messageImprint,
      serialNumber: new asn1js.Integer({ value: requests.length }),
      genTime: new Date(),
      nonce: req.nonce,
    });
    const infoDer = info.toSchema().toBER(false);
    const signed = new pkijs.SignedData({
      version: 3,
      encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: TST_INFO, eContent: new asn1js.OctetString({ valueHex: infoDer }) }),
      signerInfos: [
        new pkijs.SignerInfo({
          version: 1,
          sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
          signedAttrs: new pkijs.SignedAndUnsignedAttributes({
            type: 0,
            attributes: [
              new pkijs.Attribute({ type: "1.2.840.113549.1.9.3", values: [new asn1js.ObjectIdentifier({ value: TST_INFO })] }),
              new pkijs.Attribute({ type: "1.2.840.113549.1.9.4", values: [new asn1js.OctetString({ valueHex: await crypto.subtle.digest("SHA-256", infoDer) })] }),
            ],
          }),
        }),
      ],
      certificates: [cert],
    });
    await signed.sign(keys.privateKey, 0, "SHA-256");
    const resp = new pkijs.TimeStampResp({
      status: new pkijs.PKIStatusInfo({ status: 0 }),
      timeStampToken: new pkijs.ContentInfo({ contentType: "1.2.840.113549.1.7.2", content: signed.toSchema(true) }),
    });
    return new Response(resp.toSchema().toBER(false), { headers: { "Content-Type": "application/timestamp-reply" } });
  }) as unknown as typeof fetch;
  return { fetcher, requests };
}

function cmsOf(pdf: Uint8Array): pkijs.SignedData {
  const text = new TextDecoder("latin1").decode(pdf);
  const r = /\/ByteRange\s*\[\s*0\s+(\d+)\s+(\d+)/.exec(text)!;
  const hex = text.slice(Number(r[1]) + 1, Number(r[2]) - 1); // padding included: the DER parser stops at the element's end
  return new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16))).content });
}

describe("the seal's RFC 3161 timestamp (SEAL_TSA_URL)", () => {
  it("carries the authority's token over the signature value, and the seal stays valid", async () => {
    const tsa = await timestampAuthority();
    const sealed = await sealPdf(await makePdf(), await loadSealKey(env), { signingTime: new Date(), tsa: { url: "https://tsa.example/", fetch: tsa.fetcher } });
    expect(tsa.requests).toHaveLength(1);
    expect(tsa.requests[0]!.certReq).toBe(true);
    expect(await readSeal(sealed)).toMatchObject({ readerIntegrity: true, pkijsValid: true, coversWholeFile: true });

    const signerInfo = cmsOf(sealed).signerInfos[0]!;
    const attr = signerInfo.unsignedAttrs?.attributes.find((a) => a.type === SIGNATURE_TIMESTAMP);
    expect(attr).toBeDefined();
    const token = new pkijs.SignedData({ schema: new pkijs.ContentInfo({ schema: attr!.values[0] }).content });
    const infoDer = token.encapContentInfo.eContent!.getValue();
    // pkijs checks the token's signature and that its TSTInfo imprint is the SHA-256 of the data given: the seal's signature value
    expect(await token.verify({ signer: 0, checkChain: false, data: signerInfo.signature.valueBlock.valueHexView.slice().buffer })).toBe(true);
    const info = pkijs.TSTInfo.fromBER(infoDer);
    const imprint = new Uint8Array(await crypto.subtle.digest("SHA-256", signerInfo.signature.valueBlock.valueHexView));
    expect(new Uint8Array(info.messageImprint.hashedMessage.valueBlock.valueHexView)).toEqual(imprint);
  });

  it("refuses to seal (502 naming SEAL_TSA_URL) when the authority does not grant a timestamp", async () => {
    const tsa = await timestampAuthority({ status: 503 });
    const err = await sealPdf(await makePdf(), await loadSealKey(env), { signingTime: new Date(), tsa: { url: "https://tsa.example/", fetch: tsa.fetcher } }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(502);
    expect((err as ApiError).message).toContain("SEAL_TSA_URL");
  });

  it("is off by default: no timestamp attribute without an authority", async () => {
    const sealed = await sealPdf(await makePdf(), await loadSealKey(env), { signingTime: new Date() });
    expect(cmsOf(sealed).signerInfos[0]!.unsignedAttrs).toBeUndefined();
  });
});
