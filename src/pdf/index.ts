/**
 * The PDF room: everything that reads, edits or signs PDF bytes, and nothing that knows an envelope,
 * a field rule, storage or the audit trail. Services call it through these exports; tests may reach
 * the internals. Imports point down from here to lib and env only.
 */

// Uploads: is it a PDF, within the decode budget; opening one with pdf.js for its text.
export { checkUpload } from "./check-upload";
export { assertWithinDecodeBudget, MAX_DECODED_OBJECT_STREAM_BYTES, MAX_DECODED_STREAM_BYTES } from "./budget/decode-budget";
export { closePdf, hasPdfSignature, notAPdf, openPdf, startsWithPdfHeader } from "./open-pdf";
export type { Area, PdfDocument, PdfPage, PdfTextItem, PdfViewport } from "./open-pdf";
// Page sizes as displayed (CropBox, rotation): recorded at upload so the signing page lays out before pdf.js loads.
export { readPageSizes, type PageSize } from "./page-sizes";

// Text and anchors: the text layer in displayed-page coordinates, anchor search, embedded tags removed.
export { readPageText, type PageText } from "./text/text-layer";
export { AnchorSearch, normalizeAnchor, type AnchorQuery, type AnchorResult } from "./text/anchors";
export { stripTags, type TagToStrip } from "./text/strip-tags";

// Completion: stamp the values and append the certificate page, then seal.
export { stampAndCertify } from "./stamp/stamp-and-certify";
export { radioStamp, STAMP_ERRORS } from "./stamp/stamp-document";
export type { CertificateInput, CertificateSigner, Stamp, StampValue } from "./stamp/types";
export { raiseSealEvidence, seal, sealWithEvidence, type SealOutcome } from "./seal/seal";
// PAdES levels (docs/evidence.md): what a configuration targets, what a file holds, raising it by updates.
export { atLeast, EVIDENCE_LEVELS, evidenceLevelOf, evidenceOf, raiseEvidence, targetLevel, type EvidenceLevel, type EvidenceReport, type RaiseResult } from "./seal/levels";
export { namesRevocationSource, revocationSourcesOf } from "./seal/ocsp";
export { tryTimestampForDigest, type TimestampResult } from "./seal/timestamp";
export { loadSealKey, pemBlocks, type SealKey } from "./seal/seal-key";
// The evidence bundle's manifest timestamp (services/evidence/build-bundle.ts).
export { requestTimestamp, type TimestampAuthority } from "./seal/timestamp";

// The vault: the marked non-authoritative copy and the compliance certificate as a PDF.
export { COPY_MARKING, markNonAuthoritativeCopy, type CopyStamp, type MadeCopy } from "./vault/mark-copy";
export { copySealReason } from "./vault/seal-copy";
export { markConvertedToPaper, PAPER_MARKING, type PaperStamp } from "./vault/mark-paper";
export { renderCertificatePdf, type PrintableCertificate } from "./vault/render-certificate";

// A file kept as its parts (the original and its incremental updates).
export { sha256HexOfParts } from "./incremental/hash";
export { joinParts } from "./incremental/parts";
