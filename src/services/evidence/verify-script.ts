import { VERIFY_MJS } from "./verify-text";

/**
 * The bundle's `verify.mjs`: Node built-ins only, no network, no install. Its text is the committed
 * `verify.mjs` beside this file, byte for byte (verify-text.ts is generated from it), whose
 * `verifyEvidence` is the function the suite runs on real bundles.
 */
export function verifyScript(): string {
  return VERIFY_MJS;
}

/** The script as every bundle carries it, with its SHA-256: what GET /api/v2/evidence/verifier publishes. */
export async function publishedVerifier(): Promise<{ text: string; sha256: string; bytes: number }> {
  const bytes = new TextEncoder().encode(VERIFY_MJS);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return { text: VERIFY_MJS, sha256: Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""), bytes: bytes.byteLength };
}
