import { pdflibAddPlaceholder } from "@signpdf/placeholder-pdf-lib";
import { SignPdf } from "@signpdf/signpdf";
import { Signer, SUBFILTER_ETSI_CADES_DETACHED } from "@signpdf/utils";
import { PDFDocument } from "pdf-lib";
import { signDetached } from "./cms";
import type { SealKey } from "./seal-key";
import type { TimestampAuthority } from "./timestamp";

/** The service named in every seal's reason. */
export const SEAL_SERVICE = "esign-vault";
export const sealReason = () => `Sealed by ${SEAL_SERVICE} on completion`;

/** Bytes reserved for the CMS beyond the embedded certificates (signed attributes, signature, slack). */
const CMS_OVERHEAD_BYTES = 4096;

/** Room for an RFC 3161 token (the TSA's signature and certificate chain) when a TSA is configured. */
const TIMESTAMP_BYTES = 12288;

class CadesSigner extends Signer {
  constructor(
    private readonly seal: SealKey,
    private readonly tsa: TimestampAuthority | undefined,
  ) {
    super();
  }
  override async sign(pdfBuffer: Buffer): Promise<Buffer> {
    return Buffer.from(await signDetached(this.seal, new Uint8Array(pdfBuffer.buffer, pdfBuffer.byteOffset, pdfBuffer.byteLength), { tsa: this.tsa }));
  }
}

/**
 * Seals a completed PDF (PAdES baseline B-B): an invisible signature field on the last page whose
 * signature dictionary (ETSI.CAdES.detached, /M the signing time, /Reason, /Name the seal
 * certificate's subject) holds a CMS detached signature over the byte ranges, which cover the whole
 * file but the signature itself. With a timestamp authority, the signature carries its RFC 3161
 * token (B-T). The placeholder is sized to the certificate chain (and the token).
 */
export async function sealPdf(bytes: Uint8Array, seal: SealKey, input: { signingTime: Date; tsa?: TimestampAuthority }): Promise<Uint8Array> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  pdflibAddPlaceholder({
    pdfDoc: doc,
    pdfPage: doc.getPage(doc.getPageCount() - 1),
    reason: sealReason(),
    contactInfo: "",
    name: seal.commonName,
    location: "",
    signingTime: input.signingTime,
    // in hex digits (two per CMS byte), so always even: the placeholder's /Contents is that many characters
    signatureLength: 2 * (CMS_OVERHEAD_BYTES + seal.chainDer.reduce((n, c) => n + c.byteLength, 0) + (input.tsa ? TIMESTAMP_BYTES : 0)),
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
    appName: SEAL_SERVICE,
  });
  const prepared = await doc.save({ useObjectStreams: false });
  const signed = await new SignPdf().sign(Buffer.from(prepared.buffer, prepared.byteOffset, prepared.byteLength), new CadesSigner(seal, input.tsa));
  return new Uint8Array(signed.buffer, signed.byteOffset, signed.byteLength);
}
