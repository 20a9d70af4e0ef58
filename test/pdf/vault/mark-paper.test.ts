import { describe, expect, it } from "vitest";
import { markConvertedToPaper, PAPER_MARKING } from "../../../src/pdf";
import { COPY_MARKING } from "../../../src/pdf/vault/mark-copy";
import { makePdf, pageTexts, pdfInfo, sha256Hex } from "../../helpers/pdf";

async function paperCopyOf(original: Uint8Array) {
  const stamp = { vaultId: "vlt_paper", documentHash: await sha256Hex(original), envelopeId: "env_paper", convertedAt: new Date("2026-06-01T12:00:00Z") };
  const { update, pagesMarked, pageCount } = await markConvertedToPaper(original, stamp);
  const copy = new Uint8Array(original.length + update.length);
  copy.set(original);
  copy.set(update, original.length);
  return { copy, update, pagesMarked, pageCount, stamp };
}

describe("paper-out stamp (markConvertedToPaper)", () => {
  for (const objectStreams of [true, false]) {
    it(`stamps every page and the metadata as converted to paper, keeping the original bytes first (${objectStreams ? "xref stream" : "xref table"})`, async () => {
      const original = await makePdf({ pages: 3, objectStreams });
      const { copy, update, pagesMarked, pageCount, stamp } = await paperCopyOf(original);
      expect({ pagesMarked, pageCount }).toEqual({ pagesMarked: 3, pageCount: 3 });
      expect(await sha256Hex(copy.subarray(0, original.length))).toBe(stamp.documentHash);
      expect(update.length).toBeLessThan(20_000);

      const texts = await pageTexts(copy);
      expect(texts).toHaveLength(3);
      texts.forEach((text, i) => {
        expect(text).toContain(PAPER_MARKING);
        expect(text).toContain("no longer authoritative");
        expect(text).toContain("2026-06-01");
        expect(text).toContain(stamp.documentHash);
        expect(text).toContain(`page ${i + 1}`);
        expect(text).not.toContain(COPY_MARKING);
      });
      const info = await pdfInfo(copy);
      expect(info.Subject).toContain(PAPER_MARKING);
      expect(info.Keywords).toContain(`sha256:${stamp.documentHash}`);
      expect(info.Custom).toMatchObject({ VaultCopy: "converted-to-paper", VaultRecordId: "vlt_paper", AuthoritativeSHA256: stamp.documentHash, ConvertedToPaperAt: "2026-06-01T12:00:00.000Z" });
      for (const text of await pageTexts(original)) expect(text).not.toContain(PAPER_MARKING);
    });
  }

  it("refuses bytes that are not a PDF (415), as vault-in does", async () => {
    await expect(markConvertedToPaper(new TextEncoder().encode("not a pdf"), { vaultId: "v", documentHash: "h", envelopeId: "e", convertedAt: new Date() })).rejects.toMatchObject({ status: 415 });
  });
});
