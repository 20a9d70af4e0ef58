// Writes a sealed sample PDF for the pdfsig interoperability check (scripts/interop/pdfsig-check.sh):
// a two-page document with the signing-certificate page appended and sealed by the very modules the
// completion pipeline runs (src/pdf/stamp/certificate-page.ts, src/pdf/seal/*),
// bundled for Node with esbuild, under a fresh self-signed seal certificate.
//   node scripts/interop/seal-sample.mjs <out.pdf> [<tampered.pdf>]
// The second file, if named, is the same PDF with one byte of its Info dictionary changed.
import { build } from "esbuild";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { generateSealCertificate } from "../lib/seal-cert.mjs";

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
        'export { appendCertificatePage } from "./src/pdf/stamp/certificate-page.ts";',
      ].join("\n"),
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: bundle,
    logLevel: "error",
    banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' },
  });
  const { sealPdf, loadSealKey, appendCertificatePage } = await import(pathToFileURL(bundle).href);

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
  // SEAL_SAMPLE_ALGORITHM=ECDSA seals with a P-256 key instead of RSA-2048
  const seal = await generateSealCertificate({ commonName: "esign-vault interop sample seal", algorithm: process.env.SEAL_SAMPLE_ALGORITHM });
  const key = await loadSealKey({ SEAL_PRIVATE_KEY: seal.privateKeyPem, SEAL_CERTIFICATE: seal.certificatePem });
  const sealed = await sealPdf(withCertificate, key, { signingTime: new Date(completedAt) });
  writeFileSync(out, sealed);
  if (tamperedOut) {
    // One byte of the document title (an Info dictionary hex string, inside the signed byte range).
    const text = Buffer.from(sealed).toString("latin1");
    const at = text.indexOf("/Title <") + "/Title <".length + 3;
    const tampered = Uint8Array.from(sealed);
    tampered[at] = tampered[at] === 0x30 ? 0x31 : 0x30;
    writeFileSync(tamperedOut, tampered);
  }
  console.log(`seal-sample: wrote ${out}${tamperedOut ? ` and ${tamperedOut}` : ""}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
