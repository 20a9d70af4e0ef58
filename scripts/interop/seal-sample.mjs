// Writes a sealed sample PDF for the pdfsig interoperability check (scripts/interop/pdfsig-check.sh):
// a two-page document with the signing-certificate page appended and sealed by the very modules the
// completion pipeline runs (src/pdf/stamp/certificate-page.ts, src/pdf/seal/*),
// bundled for Node with esbuild, under a fresh self-signed seal certificate.
//   node scripts/interop/seal-sample.mjs <out.pdf> [<tampered.pdf>]
// The second file, if named, is the same PDF with one byte of its Info dictionary changed.
// SEAL_SAMPLE_LEVEL=B-LTA seals at PAdES B-LTA instead of B-B: a throwaway OpenSSL PKI
// (scripts/lib/test-pki.mjs) whose seal names an OCSP responder, with OpenSSL's TSA and OCSP responder
// behind the test stand-ins (test/global/tsa-stand-in.mjs, ocsp-stand-in.mjs), started here on
// loopback ports and stopped at the end: signature timestamp, /DSS with the OCSP responses, and a
// document timestamp over it all.
// SEAL_SAMPLE_KIND=copy writes, instead of the sealed sample, the vault's marked non-authoritative copy of
// it (src/pdf/vault/mark-copy.ts: re-serialized, stamped, sealed as a copy by the same key), and the
// sealed sample it was made of as <out.pdf>.ac.pdf.
import { build } from "esbuild";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { generateSealCertificate } from "../lib/seal-cert.mjs";
import { makeTestPki } from "../lib/test-pki.mjs";
import { startOcspStandIn } from "../../test/global/ocsp-stand-in.mjs";
import { startTsaStandIn } from "../../test/global/tsa-stand-in.mjs";

const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer().once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
/** `<file>.docts.tst` (the last signature's /Contents, padding cut) and `<file>.docts.data` (its byte ranges' bytes). */
function writeDocTimestamp(pdf, file) {
  const text = Buffer.from(pdf).toString("latin1");
  const ranges = [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)].map((m) => m.slice(1, 5).map(Number));
  const [a, b, c, d] = ranges.at(-1);
  const token = Buffer.from(text.slice(a + b + 1, c - 1), "hex");
  const n = token[1] & 0x7f;
  const length = token[1] < 0x80 ? 2 + token[1] : 2 + n + token.subarray(2, 2 + n).reduce((x, y) => x * 256 + y, 0);
  writeFileSync(`${file}.docts.tst`, token.subarray(0, length));
  writeFileSync(`${file}.docts.data`, Buffer.concat([Buffer.from(pdf.subarray(a, a + b)), Buffer.from(pdf.subarray(c, c + d))]));
}
const mkdirp = (path) => (mkdirSync(path, { recursive: true }), path);
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const [out, tamperedOut] = process.argv.slice(2);
if (!out) {
  console.error("usage: node scripts/interop/seal-sample.mjs <out.pdf> [<tampered.pdf>]");
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "seal-sample-"));
try {
  const bundle = join(dir, "seal.mjs");
  await build({
    stdin: {
      contents: [
        'export { sealPdf } from "./src/pdf/seal/seal-pdf.ts";',
        'export { loadSealKey } from "./src/pdf/seal/seal-key.ts";',
        'export { sealWithEvidence } from "./src/pdf/seal/seal.ts";',
        'export { joinParts } from "./src/pdf/incremental/parts.ts";',
        'export { appendCertificatePage } from "./src/pdf/stamp/certificate-page.ts";',
        'export { markNonAuthoritativeCopy } from "./src/pdf/vault/mark-copy.ts";',
      ].join("\n"),
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: bundle,
    logLevel: "error",
    // aliased: a bundled module (pdf.js, through the vault's loader) imports createRequire itself
    banner: { js: 'import { createRequire as __sampleCreateRequire } from "node:module"; const require = __sampleCreateRequire(import.meta.url);' },
  });
  const { sealPdf, loadSealKey, appendCertificatePage, sealWithEvidence, joinParts, markNonAuthoritativeCopy } = await import(pathToFileURL(bundle).href);

  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.setTitle("Retail installment contract");
  for (let i = 1; i <= 2; i++) doc.addPage([612, 792]).drawText(`Retail installment contract - page ${i}`, { x: 72, y: 700, size: 14, font });
  const stamped = await doc.save({ useObjectStreams: false });
  const completedAt = new Date().toISOString();
  const { bytes: withCertificate } = await appendCertificatePage(stamped, {
    envelopeId: "env_interopsample0000000000000",
    envelopeName: "Interop sample",
    completedAt,
    originalSha256: "0".repeat(64),
    stampedSha256: "f".repeat(64),
    signers: [{ name: "Jane Doe", email: "jane@example.com", role: "buyer", routing_order: 1, ip: "203.0.113.7", user_agent: "interop", viewed_at: completedAt, signed_at: completedAt }],
  });
  let sealed;
  if (process.env.SEAL_SAMPLE_LEVEL === "B-LTA") {
    // The OCSP stand-in's port is written into the seal certificate: it is started first, on a free port.
    const port = await freePort();
    const pki = makeTestPki({ ocspBase: `http://127.0.0.1:${port}`, dir: mkdirp(join(dir, "pki")) });
    const ocsp = await startOcspStandIn({ pkiDir: pki.dir, port });
    const tsa = await startTsaStandIn({ pkiDir: pki.dir });
    try {
      const env = { SEAL_PRIVATE_KEY: pki.seal.privateKeyPem, SEAL_CERTIFICATE: pki.seal.certificatePem, SEAL_TSA_URL: tsa.url };
      const outcome = await sealWithEvidence(env, [withCertificate], { signingTime: new Date(completedAt) });
      if (outcome.level !== "B-LTA") throw new Error(`seal-sample: reached ${outcome.level}, not B-LTA: ${outcome.shortfall}`);
      sealed = joinParts(outcome.parts);
      // For `openssl ts -verify` in pdfsig-check.sh: the CA, the document timestamp's token (the last
      // signature's /Contents, padding cut) and the bytes its byte ranges cover.
      writeFileSync(`${out}.ca.pem`, pki.caPem);
      writeDocTimestamp(sealed, out);
    } finally {
      await tsa.close();
      await ocsp.close();
    }
  } else {
    // SEAL_SAMPLE_ALGORITHM=ECDSA seals with a P-256 key instead of RSA-2048
    const seal = await generateSealCertificate({ commonName: "esign-vault interop sample seal", algorithm: process.env.SEAL_SAMPLE_ALGORITHM });
    const key = await loadSealKey({ SEAL_PRIVATE_KEY: seal.privateKeyPem, SEAL_CERTIFICATE: seal.certificatePem });
    sealed = await sealPdf(withCertificate, key, { signingTime: new Date(completedAt) });
    if (process.env.SEAL_SAMPLE_KIND === "copy") {
      const { createHash } = await import("node:crypto");
      writeFileSync(`${out}.ac.pdf`, sealed);
      const documentHash = createHash("sha256").update(sealed).digest("hex");
      const copy = await markNonAuthoritativeCopy(sealed, { vaultId: "vlt_interopsample", documentHash, envelopeId: "env_interopsample0000000000000", markedAt: new Date() }, key);
      sealed = joinParts(copy.parts);
    }
  }
  writeFileSync(out, sealed);
  if (tamperedOut) {
    // One byte of the document title (an Info dictionary hex string, inside the signed byte range).
    const text = Buffer.from(sealed).toString("latin1");
    const at = text.indexOf("/Title <") + "/Title <".length + 3;
    const tampered = Uint8Array.from(sealed);
    tampered[at] = tampered[at] === 0x30 ? 0x31 : 0x30;
    writeFileSync(tamperedOut, tampered);
    if (process.env.SEAL_SAMPLE_LEVEL === "B-LTA") writeDocTimestamp(tampered, tamperedOut);
  }
  console.log(`seal-sample: wrote ${out}${tamperedOut ? ` and ${tamperedOut}` : ""}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
