/**
 * The evidence bundle's verifier, `verifyEvidence`, lives in `verify.mjs` beside this file: plain
 * JavaScript, committed as it is served, so its SHA-256 is one fixed value whatever bundles the Worker
 * (docs/decisions/verifier-source.md). Its doc comment lists the checks. The Worker serves and packs
 * the file's bytes (verify-text.ts, generated from it); the suite imports the function from here and
 * runs it on real bundles in the Workers runtime, and `node verify.mjs` runs the very same text.
 */
export { verifyEvidence, type EvidenceVerdict } from "./verify.mjs";
