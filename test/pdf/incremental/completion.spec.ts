import { env } from "cloudflare:test";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { joinParts } from "../../../src/pdf/incremental/parts";
import { BuiltinSigningProvider } from "../../../src/providers/signing/builtin";
import type { Stamp } from "../../../src/pdf/stamp/types";
import { loadSealKey } from "../../../src/pdf/seal/seal-key";
import { sealPdfParts } from "../../../src/pdf/seal/seal-pdf";
import { makePdf, pageTexts, sha256Hex } from "../../helpers/pdf";
import { readSeal } from "../../helpers/seal";

const certificate = {
  envelopeId: "env_incremental",
  envelopeName: "Incremental completion",
  completedAt: "2026-05-01T12:00:00.000Z",
  originalSha256: "0".repeat(64),
  signers: [{ name: "Ann Buyer", email: "ann@example.com", role: "buyer", routing_order: 1, ip: null, user_agent: null, viewed_at: null, signed_at: null }],
};

const stamps: Stamp[] = [
  { areas: [{ page: 2, x: 0.1, y: 0.4, w: 0.5, h: 0.05 }], value: { kind: "text", text: "Stamped on page two" } },
  { areas: [{ page: 3, x: 0.1, y: 0.6, w: 0.5, h: 0.05 }], value: { kind: "text", text: "Ann Buyer", script: true } },
];

/** The completion pipeline's PDF work, as complete-envelope runs it: render (stamp + certificate), then seal. */
async function complete(original: Uint8Array) {
  const rendered = await new BuiltinSigningProvider(env).renderSignedDocument({ original, stamps, certificate });
  const sealed = await sealPdfParts(rendered.parts, await loadSealKey(env), { signingTime: new Date(certificate.completedAt) });
  return { ...rendered, sealed, bytes: joinParts(sealed) };
}

describe("completing a document appends to it instead of rewriting it", () => {
  for (const objectStreams of [false, true]) {
    const kind = objectStreams ? "a cross-reference stream" : "a cross-reference table";
    it(`keeps the original bytes as an unchanged prefix, stamps the right pages, ends with the certificate and seals the whole file (original with ${kind})`, async () => {
      const original = await makePdf({ pages: 3, objectStreams });
      const { bytes, sealed, pageCount, stampedSha256 } = await complete(original);

      // Three revisions appended to the original, which is byte for byte the file's first part.
      expect(sealed).toHaveLength(4);
      expect(sealed[0]).toBe(original);
      expect(await sha256Hex(bytes.subarray(0, original.length))).toBe(await sha256Hex(original));
      // Only the new and changed objects were written: the updates are small whatever the original's size.
      for (const update of sealed.slice(1)) expect(update.byteLength).toBeLessThan(40_000);
      const revisions = new TextDecoder("latin1").decode(bytes).match(/%%EOF/g) ?? [];
      expect(revisions.length).toBeGreaterThanOrEqual(4);

      const texts = await pageTexts(bytes);
      expect(pageCount).toBe(4);
      expect(texts).toHaveLength(4);
      expect(texts[0]).toContain("page 1");
      expect(texts[0]).not.toContain("Stamped");
      expect(texts[1]).toContain("page 2");
      expect(texts[1]).toContain("Stamped on page two");
      expect(texts[2]).toContain("page 3");
      expect(texts[2]).toContain("Ann Buyer");
      expect(texts[3]).toContain("Signing certificate");
      expect(texts[3]).toContain(stampedSha256);
      // The certificate's "stamped document" hash is the file up to the end of the stamp's revision, itself a valid PDF.
      const stamped = bytes.subarray(0, original.length + sealed[1]!.byteLength);
      expect(await sha256Hex(stamped)).toBe(stampedSha256);
      expect(await pageTexts(stamped.slice())).toHaveLength(3);

      // The seal is the last revision and covers the whole file.
      const seal = await readSeal(bytes);
      expect(seal).toMatchObject({ signatures: 1, coversWholeFile: true, readerIntegrity: true, pkijsValid: true, subFilter: "ETSI.CAdES.detached" });
      // Any reader still opens it in full.
      expect((await PDFDocument.load(bytes, { updateMetadata: false })).getPageCount()).toBe(4);

      // One changed byte of the original revision breaks the seal.
      const edited = bytes.slice();
      const middle = Math.floor(original.length / 2);
      edited[middle] = edited[middle]! ^ 0x01;
      expect((await readSeal(edited)).readerIntegrity).toBe(false);
    });
  }

  it("completes a document whose startxref points at the wrong place, finding its objects by scanning", async () => {
    const good = await makePdf({ pages: 2, objectStreams: false });
    const text = Array.from(good, (b) => String.fromCharCode(b)).join("");
    const at = text.lastIndexOf("startxref");
    const original = Uint8Array.from(`${text.slice(0, at)}startxref\n17\n%%EOF\n`, (c) => c.charCodeAt(0));
    const { bytes } = await complete(original);
    const texts = await pageTexts(bytes);
    expect(texts).toHaveLength(3);
    expect(texts[1]).toContain("Stamped on page two");
    expect(texts[0]).toContain("page 1");
    expect(texts[2]).toContain("Signing certificate");
    expect((await readSeal(bytes)).readerIntegrity).toBe(true);
  });
});
