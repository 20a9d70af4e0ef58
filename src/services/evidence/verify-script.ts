import { verifyEvidence } from "./verifier";

/**
 * The bundle's `verify.mjs`: Node built-ins only, no network, no install. Its checks are the text of
 * `verifyEvidence` (verifier.ts), the function the suite runs on real bundles; around it, reading the
 * folder and printing the outcome.
 */
export function verifyScript(): string {
  return `#!/usr/bin/env node
// Offline verifier of this evidence bundle. Run it in the unzipped folder:   node verify.mjs
// (or: node verify.mjs <folder>). Needs Node.js 18 or later; nothing else, no network.
// It recomputes the SHA-256 of the document and checks it against the hash recorded at vaulting, the
// certificate and the audit chain's vault entry, then recomputes every audit entry's hash from the
// genesis hash onward, checks control-history.json against the chain's control entries and the
// control attestation (attestation.jws): its statements and its signature by its x5c certificate.
// Prints "verified" (exit 0), or the first broken link (exit 1).
import { createHash, webcrypto } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const __name = (fn) => fn; // a bundler's helper that may appear in the function text below

const verifyEvidence = ${verifyEvidence.toString()};

const dir = process.argv[2] ?? dirname(fileURLToPath(import.meta.url));
const files = {};
for (const name of readdirSync(dir)) {
  const path = join(dir, name);
  if (statSync(path).isFile()) files[name] = new Uint8Array(readFileSync(path));
}
const result = await verifyEvidence(files, (bytes) => createHash("sha256").update(bytes).digest("hex"), webcrypto.subtle);
for (const line of result.checks) console.log("ok: " + line);
if (result.verified) {
  console.log("verified");
  process.exit(0);
}
console.log("BROKEN: " + result.broken);
process.exit(1);
`;
}
