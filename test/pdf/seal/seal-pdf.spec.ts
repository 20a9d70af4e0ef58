import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { loadSealKey } from "../../../src/pdf/seal/seal-key";
import { sealPdf } from "../../../src/pdf/seal/seal-pdf";
import { makePdf } from "../../helpers/pdf";
import { readSeal } from "../../helpers/seal";

describe("the PAdES seal", () => {
  it("is a valid CAdES detached signature over the whole file, by the configured certificate, with time and reason", async () => {
    const sealed = await sealPdf(await makePdf({ pages: 2 }), await loadSealKey(env), { signingTime: new Date("2026-03-01T12:00:00Z") });
    const seal = await readSeal(sealed);
    expect(seal).toMatchObject({
      signatures: 1,
      coversWholeFile: true,
      readerIntegrity: true,
      pkijsValid: true,
      subFilter: "ETSI.CAdES.detached",
      signingTime: "20260301120000",
      reason: "Sealed by esign-vault on completion",
      signerCommonName: "esign-vault test seal",
    });
  });

  it("is invalid once one byte of the sealed file changes", async () => {
    const original = await makePdf({ pages: 1, objectStreams: false });
    const sealed = await sealPdf(original, await loadSealKey(env), { signingTime: new Date() });
    // The document's title (in its Info dictionary, a hex string, in the original revision) loses one bit of one character.
    const text = new TextDecoder("latin1").decode(sealed);
    const at = text.indexOf("/Title <") + "/Title <".length + 3;
    expect(at).toBeGreaterThan(20);
    expect(at).toBeLessThan(original.length);
    const edited = sealed.slice();
    edited[at] = edited[at] === 0x30 ? 0x31 : 0x30;
    const seal = await readSeal(edited);
    expect(seal.readerIntegrity).toBe(false);
    expect(seal.pkijsValid).toBe(false);
  });
});
