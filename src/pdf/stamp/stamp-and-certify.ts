import { sha256HexOfParts } from "../incremental/hash";
import { IncrementalPdf } from "../incremental/incremental-pdf";
import { addCertificatePages } from "./certificate-page";
import { stampPages } from "./stamp-document";
import type { CertificateInput, Stamp } from "./types";

/**
 * The completed document before its seal, as incremental updates on the original (never a full
 * rewrite, so a 50 MB scan needs little more than itself): stamp every value, hash the stamped file,
 * then append the certificate page that states that hash (it cannot state the hash of the file it is
 * part of). Returns the file as its parts, the original first.
 */
export async function stampAndCertify(input: {
  original: Uint8Array;
  stamps: Stamp[];
  certificate: Omit<CertificateInput, "stampedSha256">;
}): Promise<{ parts: Uint8Array[]; pageCount: number; stampedSha256: string }> {
  const pdf = await IncrementalPdf.open([input.original]);
  await stampPages(pdf.doc, input.stamps);
  await pdf.commit();
  const stampedSha256 = await sha256HexOfParts(pdf.parts);
  const pageCount = await addCertificatePages(pdf.doc, { ...input.certificate, stampedSha256 });
  await pdf.commit();
  return { parts: pdf.parts, pageCount, stampedSha256 };
}
