// Completion and vault-in memory benchmark, bundled by scripts/bench.mjs with esbuild and run in Node:
// the Worker's own PDF code (pdf-lib, @signpdf, pkijs) runs unchanged outside workerd.
//   node --expose-gc <bundle> make <out.pdf> <megabytes>       writes a scanned-like PDF (1 MB image per page)
//   node --expose-gc <bundle> make-pages <out.pdf> <pages>     writes a long text PDF (one small content stream per page)
//   node --expose-gc <bundle> memory <file.pdf> <seal.json>    prints { bytes_mb, completion_mb, vault_mb, hwm_mb }
//   node <bundle> bombs <dir> <count> [seed]                   writes the bomb corpus (test/helpers/pdf-bomb-grammar.ts) and plain-100k.pdf
import { closeSync, openSync, readFileSync, readSync, statSync, writeFileSync } from "node:fs";
import { PDFDocument, PDFName, StandardFonts } from "pdf-lib";
import { createHash } from "node:crypto";
import { BuiltinSigningProvider } from "../src/providers/signing/builtin";
import { loadSealKey } from "../src/pdf/seal/seal-key";
import { sealPdfParts } from "../src/pdf/seal/seal-pdf";
import { markNonAuthoritativeCopy } from "../src/pdf/vault/mark-copy";
import fc from "fast-check";
import { bombCase, bombPdf } from "../test/helpers/pdf-bomb-grammar";

/**
 * The Workers runtime's crypto.DigestStream (hashing the file's parts without joining them), for Node:
 * without it the code would fall back to hashing a joined copy, which the Worker never makes.
 */
class NodeDigestStream extends WritableStream<Uint8Array> {
  readonly digest: Promise<ArrayBuffer>;
  constructor() {
    const hash = createHash("sha256");
    let done!: (b: ArrayBuffer) => void;
    const digest = new Promise<ArrayBuffer>((resolve) => (done = resolve));
    super({
      write: (chunk) => void hash.update(chunk),
      close: () => {
        const b = hash.digest();
        done(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
      },
    });
    this.digest = digest;
  }
}
(globalThis.crypto as unknown as { DigestStream: unknown }).DigestStream ??= NodeDigestStream;

const MB = 1048576;

/** A scanned document: one page per MB, each showing one 1 MB DCT image (random bytes; nobody here decodes it). */
export async function scannedPdf(megabytes: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let p = 0; p < megabytes; p++) {
    const data = new Uint8Array(MB);
    for (let i = 0; i < data.length; i += 65536) crypto.getRandomValues(data.subarray(i, i + 65536));
    const image = doc.context.register(
      doc.context.stream(data, { Type: "XObject", Subtype: "Image", Width: 1700, Height: 2200, ColorSpace: "DeviceRGB", BitsPerComponent: 8, Filter: "DCTDecode" }),
    );
    const page = doc.addPage([612, 792]);
    const name = page.node.newXObject("Scan", image);
    const content = doc.context.register(doc.context.stream(`q 612 0 0 792 0 0 cm /${name.asString().slice(1)} Do Q`));
    page.node.set(PDFName.of("Contents"), content);
  }
  return doc.save({ useObjectStreams: false });
}

/** A long text document: `pages` letter pages, each with its own small content stream (one line of text). */
export async function manyPagesPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 1; p <= pages; p++) doc.addPage([612, 792]).drawText(`Page ${p} of a long contract`, { x: 72, y: 700, size: 12, font });
  return doc.save({ useObjectStreams: false });
}

const signer = { name: "Jane Doe", email: "jane@example.com", role: "buyer", routing_order: 1, ip: "203.0.113.7", user_agent: "bench", viewed_at: null, signed_at: null };

/**
 * The completion pipeline's PDF work, as complete-envelope runs it: the provider's render (stamp and
 * certificate page, two incremental updates) and the seal (the last one); the file stays in parts.
 */
async function complete(original: Uint8Array, seal: Awaited<ReturnType<typeof loadSealKey>>): Promise<Uint8Array[]> {
  const now = new Date().toISOString();
  const { parts } = await new BuiltinSigningProvider({} as never).renderSignedDocument({
    original,
    stamps: [{ areas: [{ page: 1, x: 0.1, y: 0.8, w: 0.3, h: 0.05 }], value: { kind: "text", text: "Jane Doe", script: true } }],
    certificate: { envelopeId: "env_bench", envelopeName: "Bench", completedAt: now, originalSha256: "0".repeat(64), signers: [signer] },
  });
  return sealPdfParts(parts, seal, { signingTime: new Date() });
}

/** Vault-in's PDF work: open, make the copy (re-serialized, stamped, sealed as a copy: a new file of about the original's size). */
async function vaultIn(original: Uint8Array, seal: Awaited<ReturnType<typeof loadSealKey>>): Promise<Uint8Array[]> {
  const copy = await markNonAuthoritativeCopy(original, { vaultId: "vlt_bench", documentHash: "0".repeat(64), envelopeId: "env_bench", markedAt: new Date() }, seal);
  return [original, ...copy.parts];
}

const gc = (globalThis as { gc?: () => void }).gc;
const live = () => {
  gc!();
  const u = process.memoryUsage();
  return u.heapUsed + u.external;
};
const hwmKib = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? NaN);

/**
 * Peak live memory of `work` over the baseline before it, its input bytes included (the Worker holds
 * them too): a full GC, then V8 heap in use plus external memory, read every 100 ms and after it. pdf-lib
 * runs long stretches synchronously, so the sampled figure is a floor; the process's RSS high-water
 * mark rise (garbage included) is printed beside it as the ceiling.
 */
async function peak(file: string, work: (bytes: Uint8Array) => Promise<Uint8Array[]>) {
  const before = live();
  // Read into one array the Worker's way (one counted buffer): a Buffer read then copied left a garbage
  // second copy counted while its backing store awaited release (single runs read up to 2x the file).
  const bytes = new Uint8Array(statSync(file).size);
  const fd = openSync(file, "r");
  for (let at = 0; at < bytes.length; ) at += readSync(fd, bytes, at, bytes.length - at, at);
  closeSync(fd);
  let top = live();
  const timer = setInterval(() => (top = Math.max(top, live())), 100);
  const out = await work(bytes);
  top = Math.max(top, live());
  clearInterval(timer);
  void out.length;
  return (top - before) / MB;
}

async function memory(file: string, sealFile: string, which: string) {
  if (!gc) throw new Error("run with --expose-gc");
  const sealPem = JSON.parse(readFileSync(sealFile, "utf8"));
  const seal = await loadSealKey({ SEAL_PRIVATE_KEY: sealPem.privateKeyPem, SEAL_CERTIFICATE: sealPem.certificatePem } as never);
  const warm = await scannedPdf(1);
  await complete(warm, seal);
  await vaultIn(warm, seal);
  const size = statSync(file).size / MB;
  const rss0 = hwmKib();
  const mb = which === "completion" ? await peak(file, (b) => complete(b, seal)) : await peak(file, (b) => vaultIn(b, seal));
  return { bytes_mb: size, which, peak_mb: mb, hwm_rise_mb: (hwmKib() - rss0) / 1024 };
}

if (process.argv[2] === "make") writeFileSync(process.argv[3]!, await scannedPdf(Number(process.argv[4])));
if (process.argv[2] === "make-pages") writeFileSync(process.argv[3]!, await manyPagesPdf(Number(process.argv[4])));
/**
 * The decode budget's corpus for the bench: `count` generated bombs (every obfuscation of the grammar,
 * a fixed seed so runs compare) as bomb-<n>.pdf, and a plain ~100 KB text PDF to set them against.
 */
async function bombCorpus(dir: string, count: number, seed: number): Promise<void> {
  const cases = fc.sample(bombCase(false), { numRuns: count, seed });
  cases.forEach((c, n) => writeFileSync(`${dir}/bomb-${n}.pdf`, bombPdf(c)));
  let pages = 20;
  let plain = await manyPagesPdf(pages);
  while (plain.length < 100 * 1024) plain = await manyPagesPdf((pages = Math.ceil((pages * 100 * 1024) / plain.length) + 1));
  writeFileSync(`${dir}/plain-100k.pdf`, plain);
}

if (process.argv[2] === "bombs") await bombCorpus(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5] ?? 33));
if (process.argv[2] === "memory") console.log(JSON.stringify(await memory(process.argv[3]!, process.argv[4]!, process.argv[5]!)));
