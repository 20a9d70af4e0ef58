import { env } from "cloudflare:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { joinParts } from "../../../src/pdf/incremental/parts";
import { loadVaultablePdf } from "../../../src/pdf/vault/load-pdf";
import { COPY_MARKING, markNonAuthoritativeCopy } from "../../../src/pdf/vault/mark-copy";
import { loadSealKey } from "../../../src/pdf/seal/seal-key";
import { sealPdf } from "../../../src/pdf/seal/seal-pdf";
import { readSignatures } from "../../../src/pdf/seal/signatures";
import { expectIndependentCopy } from "../../helpers/copies";
import { makePdf, pageTexts, pdfInfo, sha256Hex } from "../../helpers/pdf";

async function markedCopyOf(original: Uint8Array) {
  const stamp = { vaultId: "vlt_test", documentHash: await sha256Hex(original), envelopeId: "env_test", markedAt: new Date("2026-05-01T00:00:00Z") };
  const made = await markNonAuthoritativeCopy(original, stamp, await loadSealKey(env));
  return { ...made, copy: joinParts(made.parts), stamp };
}

/** A sealed document with a filled form field whose appearance shows its value: what an uploaded, signed AC may hold. */
async function sealedWithField(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawText("Contract with a filled field", { x: 72, y: 700, size: 14, font });
  const field = doc.getForm().createTextField("buyer_name");
  field.setText("Field value Ann Buyer");
  field.addToPage(page, { x: 72, y: 600, width: 300, height: 24, font });
  doc.getForm().updateFieldAppearances(font);
  return sealPdf(await doc.save({ useObjectStreams: false }), await loadSealKey(env), { signingTime: new Date("2026-04-01T00:00:00Z") });
}

describe("non-authoritative copy marking", () => {
  for (const objectStreams of [true, false]) {
    it(`is a re-serialized, stamped document sealed as a copy, with no prefix the original (${objectStreams ? "xref stream" : "xref table"})`, async () => {
      const original = await makePdf({ pages: 3, objectStreams });
      const { copy, pagesMarked, pageCount, stamp } = await markedCopyOf(original);
      expect({ pagesMarked, pageCount }).toEqual({ pagesMarked: 3, pageCount: 3 });
      const { texts, seal } = await expectIndependentCopy(copy, original, stamp.documentHash);
      expect(seal.reason).toBe(`Non-authoritative copy of ${stamp.documentHash}`);
      texts.forEach((text, i) => expect(text).toContain(`page ${i + 1}`));
      const info = await pdfInfo(copy);
      expect(info.Subject).toContain(COPY_MARKING);
      expect(info.Keywords).toContain(`sha256:${stamp.documentHash}`);
      expect(info.Custom).toMatchObject({ VaultCopy: "non-authoritative", VaultRecordId: "vlt_test", AuthoritativeSHA256: stamp.documentHash });
      // The original itself is not marked.
      for (const text of await pageTexts(original)) expect(text).not.toContain(COPY_MARKING);
    });
  }

  it("flattens the original's seal and fields to appearance: the copy's only signature is its own", async () => {
    const ac = await sealedWithField();
    expect(await readSignatures([ac])).toHaveLength(1);
    const { copy, stamp } = await markedCopyOf(ac);
    await expectIndependentCopy(copy, ac, stamp.documentHash);
    const text = new TextDecoder("latin1").decode(copy);
    // one signature dictionary (ours), one /ByteRange, no DSS, no field of the original
    expect(text.match(/\/ByteRange/g)).toHaveLength(1);
    expect(text).not.toContain("/DSS");
    expect(text).not.toContain("buyer_name");
    // the field's value is still shown, as page content
    expect((await pageTexts(copy))[0]).toContain("Field value Ann Buyer");
    const reread = await PDFDocument.load(copy);
    expect(reread.getForm().getFields().map((f) => f.constructor.name)).toEqual(["PDFSignature"]);
  });

  it("writes a large stream as a view of the original's bytes (parts), and the copy still reads and verifies", async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let i = 1; i <= 2; i++) {
      const page = doc.addPage([612, 792]);
      page.drawText(`Scanned page ${i}`, { x: 72, y: 700, size: 14, font });
      const pixels = new Uint8Array(90_000); // incompressible: a 300x100 RGB "scan", past 64 KiB
      for (let at = 0; at < pixels.length; at += 65_536) crypto.getRandomValues(pixels.subarray(at, at + 65_536));
      const image = doc.context.flateStream(pixels, { Type: "XObject", Subtype: "Image", Width: 300, Height: 100, ColorSpace: "DeviceRGB", BitsPerComponent: 8 });
      page.node.newXObject("Scan", doc.context.register(image));
    }
    const original = await sealPdf(await doc.save(), await loadSealKey(env), { signingTime: new Date() });
    const { copy, parts, stamp } = await markedCopyOf(original);
    expect(parts.length).toBeGreaterThan(3); // the fresh file's small objects, two views, the seal's update
    const { texts } = await expectIndependentCopy(copy, original, stamp.documentHash);
    expect(texts.map((t) => /Scanned page \d/.exec(t)?.[0])).toEqual(["Scanned page 1", "Scanned page 2"]);
  });

  it("has a new file identifier", async () => {
    const original = await makePdf({ pages: 1, objectStreams: false });
    const { copy } = await markedCopyOf(original);
    const id = (bytes: Uint8Array) => /\/ID\s*\[\s*<([0-9A-Fa-f]+)>/.exec(new TextDecoder("latin1").decode(bytes))?.[1];
    expect(id(copy)).toBeTruthy();
    expect(id(copy)).not.toBe(id(original));
  });

  it("refuses bytes that are not a PDF, and PDFs that do not parse", async () => {
    await expect(loadVaultablePdf(new TextEncoder().encode("hello, not a pdf"))).rejects.toMatchObject({ status: 415 });
    await expect(loadVaultablePdf(new TextEncoder().encode("%PDF-1.7\nthis is not really a pdf\n%%EOF"))).rejects.toMatchObject({ status: 415 });
    const real = await makePdf();
    await expect(loadVaultablePdf(real.subarray(0, 40))).rejects.toMatchObject({ status: 415 });
  });
});
