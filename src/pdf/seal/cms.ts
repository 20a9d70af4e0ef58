import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import type { SealKey } from "./seal-key";
import { requestTimestamp, tryTimestampForDigest, type TimestampAuthority } from "./timestamp";

/**
 * With a TSA: without `onTimestampFailure` a TSA failure throws (502, as `requestTimestamp`); with it,
 * the failure is reported there and the CMS is returned without the timestamp (B-B, raised later).
 */
type SignOptions = { tsa?: TimestampAuthority; onTimestampFailure?: (reason: string) => void };

const OID = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingCertificateV2: "1.2.840.113549.1.9.16.2.47",
  signatureTimeStampToken: "1.2.840.113549.1.9.16.2.14",
};

/**
 * A CAdES detached signature (CMS SignedData, no encapsulated content) over `data`, SHA-256, with the
 * signed attributes PAdES baseline B-B asks for: content type, message digest and the ESS
 * signing-certificate-v2 that binds the seal certificate to the signature. The claimed signing time
 * is the signature dictionary's /M, not a CMS attribute (ETSI EN 319 142-1). The whole chain is embedded.
 */
export async function signDetached(seal: SealKey, data: Uint8Array, options: SignOptions = {}): Promise<Uint8Array> {
  return signDetachedDigest(seal, new Uint8Array(await crypto.subtle.digest("SHA-256", data)), options);
}

/** `signDetached` given the SHA-256 of the data (a large file is hashed in parts, never joined). */
export async function signDetachedDigest(seal: SealKey, digest: Uint8Array, options: SignOptions = {}): Promise<Uint8Array> {
  const signer = seal.chain[0]!;
  const certHash = new Uint8Array(await crypto.subtle.digest("SHA-256", seal.chainDer[0]!));
  // SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 }; ESSCertIDv2 with the default
  // hash algorithm (SHA-256) omitted, and the issuer and serial of the certificate.
  const issuerSerial = new pkijs.IssuerSerial({
    issuer: new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: signer.issuer })] }),
    serialNumber: signer.serialNumber,
  });
  const signingCertificateV2 = new asn1js.Sequence({
    value: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: certHash }), issuerSerial.toSchema()] })] })],
  });

  const signedData = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
            new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: digest })] }),
            new pkijs.Attribute({ type: OID.signingCertificateV2, values: [signingCertificateV2] }),
          ],
        }),
      }),
    ],
    certificates: seal.chain,
  });
  await signedData.sign(seal.privateKey, 0, "SHA-256");
  if (options.tsa) {
    // A signature timestamp (PAdES B-T): the TSA's token over the signature value, as an unsigned attribute.
    const signerInfo = signedData.signerInfos[0]!;
    let token: pkijs.ContentInfo | null;
    if (options.onTimestampFailure) {
      const imprint = new Uint8Array(await crypto.subtle.digest("SHA-256", signerInfo.signature.valueBlock.valueHexView));
      const result = await tryTimestampForDigest(options.tsa, imprint);
      token = result.ok ? result.token : null;
      if (!result.ok) options.onTimestampFailure(result.reason);
    } else {
      token = await requestTimestamp(options.tsa, signerInfo.signature.valueBlock.valueHexView);
    }
    if (token) {
      signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
        type: 1,
        attributes: [new pkijs.Attribute({ type: OID.signatureTimeStampToken, values: [token.toSchema()] })],
      });
    }
  }
  const content = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  return new Uint8Array(content.toSchema().toBER(false));
}
