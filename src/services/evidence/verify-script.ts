import { verifyEvidence } from "./verifier";

/**
 * The bundle's `verify.mjs`: Node built-ins only, no network, no install. Its checks are the text of
 * `verifyEvidence` (verifier.ts), the function the suite runs on real bundles; around it, reading the
 * folder and printing the outcome.
 */
export function verifyScript(): string {
  return `#!/usr/bin/env node
// Offline verifier of this evidence bundle. Run it in the unzipped folder:
//   node verify.mjs --seal-sha256 <hex> [--seal-sha256 <hex> ...] [--tsa-sha256 <hex> ...] [folder]
// Check this script first: its SHA-256 is published at GET /api/v2/evidence/verifier.
// Needs Node.js 18 or later; nothing else, no network. It trusts nothing the bundle says of itself:
// the seal certificate's SHA-256 comes from you (the service publishes its seal certificates at
// GET /api/v2/seal-certificates; give a retired one too for a document sealed before a renewal).
// It checks that manifest.jws is signed by a pinned certificate over manifest.json's exact bytes,
// every file against the signed manifest, the document hash against the certificate and the audit
// chain, the chain from the genesis hash to the signed head, the control history and attestation,
// the control-key history (every move by an organization holding a key signed by one of its keys),
// the PDF's seal (made by a pinned certificate, its digest and signature), and every RFC 3161 token:
// its imprint, the TSA's signature and its certificate path, pinned by --tsa-sha256 (the TSA's
// certificate or its CA's). Prints the bundle's production time and the attestation's time, then
// "verified" (exit 0), or what does not match (exit 1); without a pinned seal certificate, exit 2;
// verified but carrying a timestamp whose TSA was not pinned: "timestamp not pinned" (exit 3).
import { createHash, webcrypto } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const __name = (fn) => fn; // a bundler's helper that may appear in the function text below

const verifyEvidence = ${verifyEvidence.toString()};

const args = process.argv.slice(2);
const pins = [];
const tsaPins = [];
let folder = null;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--seal-sha256") pins.push(...String(args[++i] ?? "").split(","));
  else if (args[i].startsWith("--seal-sha256=")) pins.push(...args[i].slice("--seal-sha256=".length).split(","));
  else if (args[i] === "--tsa-sha256") tsaPins.push(...String(args[++i] ?? "").split(","));
  else if (args[i].startsWith("--tsa-sha256=")) tsaPins.push(...args[i].slice("--tsa-sha256=".length).split(","));
  else folder = args[i];
}
if (pins.filter(Boolean).length === 0) {
  console.error("usage: node verify.mjs --seal-sha256 <hex> [--seal-sha256 <hex> ...] [folder]");
  console.error("Refused: no seal certificate pinned. This bundle carries its own certificate, so it cannot vouch for itself:");
  console.error("give the SHA-256 fingerprint of the service's seal certificate from a source you trust (GET /api/v2/seal-certificates,");
  console.error("or your own records); openssl x509 -noout -fingerprint -sha256 prints one (colons are fine).");
  process.exit(2);
}
const dir = folder ?? dirname(fileURLToPath(import.meta.url));
const files = {};
for (const name of readdirSync(dir)) {
  const path = join(dir, name);
  if (statSync(path).isFile()) files[name] = new Uint8Array(readFileSync(path));
}
let result;
try {
  result = await verifyEvidence(files, (bytes) => createHash("sha256").update(bytes).digest("hex"), { sealSha256: pins.filter(Boolean), tsaSha256: tsaPins.filter(Boolean), subtle: webcrypto.subtle });
} catch (err) {
  result = { verified: false, checks: [], notes: [], producedAt: null, attestedAt: null, broken: "the bundle could not be read (" + (err && err.message ? err.message : String(err)) + ")" };
}
for (const line of result.checks) console.log("ok: " + line);
for (const line of result.notes) console.log("note: " + line);
console.log("produced_at: " + (result.producedAt ?? "(not stated)"));
console.log("attestation time: " + (result.attestedAt ?? "(no attestation)"));
if (result.verified && result.timestamps === "unpinned") {
  console.log("timestamp not pinned: the bundle's timestamps verify, but their authority is whoever signed them; give --tsa-sha256 <fingerprint> of the TSA's certificate (or its CA's) from a source you trust");
  process.exit(3);
}
if (result.verified) {
  if (result.timestamps === "none") console.log("no timestamp: this bundle carries no RFC 3161 token (no timestamp authority configured)");
  console.log("verified");
  process.exit(0);
}
console.log("BROKEN: " + result.broken);
process.exit(1);
`;
}

/** The script as every bundle carries it, with its SHA-256: what GET /api/v2/evidence/verifier publishes. */
export async function publishedVerifier(): Promise<{ text: string; sha256: string; bytes: number }> {
  const bytes = new TextEncoder().encode(verifyScript());
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return { text: verifyScript(), sha256: Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""), bytes: bytes.byteLength };
}
