import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { joinParts } from "../../../src/pdf/incremental/parts";
import { loadSealKey } from "../../../src/pdf/seal/seal-key";
import { expectIndependentCopy } from "../../helpers/copies";
import { markConvertedToPaper, PAPER_MARKING } from "../../../src/pdf";
import { COPY_MARKING } from "../../../src/pdf/vault/mark-copy";
import { makePdf, pageTexts, pdfInfo, sha256Hex } from "../../helpers/pdf";

async function paperCopyOf(original: Uint8Array) {
  const stamp = { vaultId: "vlt_paper", documentHash: await sha256Hex(original), envelopeId: "env_paper", convertedAt: new Date("2026-06-01T12:00:00Z") };
  const { parts, pagesMarked, pageCount } = await markConvertedToPaper(original, stamp, await loadSealKey(env));
  const copy = joinParts(parts);
  return { copy, pagesMarked, pageCount, stamp };
}

describe("paper-out stamp (markConvertedToPaper)", () => {
  for (const objectStreams of [true, false]) {
    it(`stamps every page and the metadata as converted to paper, re-serialized and sealed as a copy (${objectStreams ? "xref stream" : "xref table"})`, async () => {
      const original = await makePdf({ pages: 3, objectStreams });
      const { copy, pagesMarked, pageCount, stamp } = await paperCopyOf(original);
      expect({ pagesMarked, pageCount }).toEqual({ pagesMarked: 3, pageCount: 3 });
      const { texts, seal } = await expectIndependentCopy(copy, original, stamp.documentHash, PAPER_MARKING);
      expect(seal.reason).toBe(`Copy converted to paper of ${stamp.documentHash}`);
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
    await expect(markConvertedToPaper(new TextEncoder().encode("not a pdf"), { vaultId: "v", documentHash: "h", envelopeId: "e", convertedAt: new Date() }, await loadSealKey(env))).rejects.toMatchObject({ status: 415 });
  });
});
