import { Buffer } from "node:buffer";
import { expect } from "vitest";
import { pageTexts, sha256Hex } from "./pdf";
import { readSeal } from "./seal";

/**
 * What DESIGN 13 asks of every file a non-controller can obtain, checked against the document it was
 * made of (`ac`, whose SHA-256 is `acHash`): the whole of `ac` occurs nowhere in it; its prefix of the
 * AC's length does not hash to `acHash` (the one prefix that could) and it does not even start with the
 * AC's first kilobyte; every page shows `marking` and the hash; it carries exactly one signature, the
 * service's, valid, covering the whole file, whose /Reason names the hash.
 */
export async function expectIndependentCopy(copy: Uint8Array, ac: Uint8Array, acHash: string, marking = "NON-AUTHORITATIVE COPY") {
  expect(Buffer.from(copy).indexOf(Buffer.from(ac)), "the AC's bytes occur in the copy").toBe(-1);
  if (copy.byteLength >= ac.byteLength) expect(await sha256Hex(copy.subarray(0, ac.byteLength)), "a prefix of the copy is the AC").not.toBe(acHash);
  const head = Math.min(1024, ac.byteLength);
  expect(Buffer.from(copy.subarray(0, head)).equals(Buffer.from(ac.subarray(0, head))), "the copy starts with the AC's first kilobyte").toBe(false);

  const texts = await pageTexts(copy);
  expect(texts.length).toBeGreaterThan(0);
  for (const text of texts) {
    expect(text).toContain(marking);
    expect(text).toContain(acHash);
  }

  const seal = await readSeal(copy);
  expect(seal).toMatchObject({ signatures: 1, coversWholeFile: true, pkijsValid: true, readerIntegrity: true, subFilter: "ETSI.CAdES.detached" });
  expect(seal.reason).toContain(acHash);
  return { texts, seal };
}
