import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { loadVaultablePdf } from "../../../src/pdf/vault/load-pdf";
import { COPY_MARKING, markNonAuthoritativeCopy } from "../../../src/pdf/vault/mark-copy";
import { makePdf, pageTexts, pdfInfo, sha256Hex } from "../../helpers/pdf";

async function markedCopyOf(original: Uint8Array) {
  const stamp = { vaultId: "vlt_test", documentHash: await sha256Hex(original), envelopeId: "env_test", markedAt: new Date("2026-05-01T00:00:00Z") };
  const { update, pagesMarked } = await markNonAuthoritativeCopy(original, stamp);
  const copy = new Uint8Array(original.length + update.length);
  copy.set(original);
  copy.set(update, original.length);
  return { copy, update, pagesMarked, stamp };
}

const latin1 = (bytes: Uint8Array) => Array.from(bytes, (b) => String.fromCharCode(b)).join("");

describe("non-authoritative copy marking", () => {
  for (const objectStreams of [true, false]) {
    it(`stamps every page and the metadata, keeping the original bytes as the first revision (${objectStreams ? "xref stream" : "xref table"})`, async () => {
      const original = await makePdf({ pages: 3, objectStreams });
      const { copy, update, pagesMarked, stamp } = await markedCopyOf(original);
      expect(pagesMarked).toBe(3);
      // An incremental update: the authoritative bytes are untouched at the start of the copy.
      expect(await sha256Hex(copy.subarray(0, original.length))).toBe(stamp.documentHash);
      expect(update.length).toBeLessThan(20_000);

      const texts = await pageTexts(copy);
      expect(texts).toHaveLength(3);
      texts.forEach((text, i) => {
        expect(text).toContain(COPY_MARKING);
        expect(text).toContain(`page ${i + 1}`);
        expect(text).toContain(stamp.documentHash);
      });
      const info = await pdfInfo(copy);
      expect(info.Subject).toContain(COPY_MARKING);
      expect(info.Keywords).toContain(`sha256:${stamp.documentHash}`);
      expect(info.Custom).toMatchObject({ VaultCopy: "non-authoritative", VaultRecordId: "vlt_test" });
      // The original itself is not marked.
      for (const text of await pageTexts(original)) expect(text).not.toContain(COPY_MARKING);
    });
  }

  it("writes a cross-reference section whose offsets point at the objects they name", async () => {
    const original = await makePdf({ pages: 2, objectStreams: false });
    const { copy, update } = await markedCopyOf(original);
    const text = latin1(update);
    const xref = /xref\n([\s\S]*?)trailer/.exec(text)![1]!;
    const lines = xref.split("\n").filter(Boolean);
    let checked = 0;
    for (let i = 0; i < lines.length; ) {
      const [first, count] = lines[i]!.split(" ").map(Number) as [number, number];
      for (let k = 0; k < count; k++) {
        const [offset, gen] = lines[i + 1 + k]!.trim().split(" ");
        expect(latin1(copy.subarray(Number(offset), Number(offset) + 20))).toMatch(new RegExp(`^${first + k} ${Number(gen)} obj`));
        checked += 1;
      }
      i += 1 + count;
    }
    expect(checked).toBeGreaterThan(3);
    expect(text).toMatch(/\/Prev \d+/);
    expect(text.trimEnd().endsWith("%%EOF")).toBe(true);
  });

  it("can be re-read by pdf-lib, which sees the stamped revision", async () => {
    const original = await makePdf({ pages: 2 });
    const { copy } = await markedCopyOf(original);
    const reread = await PDFDocument.load(copy);
    expect(reread.getPageCount()).toBe(2);
    expect(reread.getSubject()).toContain(COPY_MARKING);
  });

  it("refuses bytes that are not a PDF, and PDFs that do not parse", async () => {
    await expect(loadVaultablePdf(new TextEncoder().encode("hello, not a pdf"))).rejects.toMatchObject({ status: 415 });
    await expect(loadVaultablePdf(new TextEncoder().encode("%PDF-1.7\nthis is not really a pdf\n%%EOF"))).rejects.toMatchObject({ status: 415 });
    const real = await makePdf();
    await expect(loadVaultablePdf(real.subarray(0, 40))).rejects.toMatchObject({ status: 415 });
  });
});
