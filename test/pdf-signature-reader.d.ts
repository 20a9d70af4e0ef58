// pdf-signature-reader ships no types: what test/helpers/seal.ts uses of it.
declare module "pdf-signature-reader" {
  const verifyPdf: (pdf: Buffer | Uint8Array) => unknown;
  export default verifyPdf;
}
