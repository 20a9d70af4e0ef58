import verifyPdf from "pdf-signature-reader";
import * as pkijs from "pkijs";

/**
 * Checks a PDF's seal with verifiers that share nothing with our signing code: pdf-signature-reader
 * (node-forge: it re-hashes the byte ranges, compares the CMS message digest and checks the RSA
 * signature over the signed attributes) and, independently, pkijs's SignedData.verify over the byte
 * ranges read here from the file itself.
 */
export async function readSeal(pdf: Uint8Array) {
  const text = new TextDecoder("latin1").decode(pdf);
  const ranges = [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)].map((m) => m.slice(1, 5).map(Number) as [number, number, number, number]);
  type Report = { verified: boolean; integrity?: boolean; message?: string; signatures?: { meta: { certs: { issuedTo: { commonName?: string } }[] } }[] };
  let reader: Report;
  try {
    reader = verifyPdf(Buffer.from(pdf)) as Report;
  } catch (err) {
    reader = { verified: false, message: String(err) }; // e.g. no signature dictionary at all
  }
  const [r] = ranges;
  let pkijsValid = false;
  let subFilter: string | null = null;
  let signingTime: string | null = null;
  let reason: string | null = null;
  if (r) {
    const signed = new Uint8Array(r[1] + r[3]);
    signed.set(pdf.subarray(r[0], r[0] + r[1]), 0);
    signed.set(pdf.subarray(r[2], r[2] + r[3]), r[1]);
    const hex = text.slice(r[0] + r[1] + 1, r[2] - 1); // padding included: the DER parser stops at the element's end
    const der = Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
    try {
      const cms = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(der).content });
      pkijsValid = await cms.verify({ signer: 0, data: signed.buffer, checkChain: false });
    } catch {
      pkijsValid = false;
    }
    subFilter = /\/SubFilter\s*\/([\w.]+)/.exec(text)?.[1] ?? null;
    signingTime = /\/M\s*\(D:(\d{14})/.exec(text)?.[1] ?? null;
    reason = /\/Reason\s*\(([^)]*)\)/.exec(text)?.[1] ?? null;
  }
  return {
    signatures: ranges.length,
    /** the byte ranges cover the whole file but the signature value */
    coversWholeFile: ranges.length === 1 && r![0] === 0 && r![2] + r![3] === pdf.byteLength,
    readerIntegrity: reader.integrity === true,
    readerMessage: reader.message ?? null,
    signerCommonName: reader.signatures?.[0]?.meta.certs[0]?.issuedTo.commonName ?? null,
    pkijsValid,
    subFilter,
    signingTime,
    reason,
  };
}
