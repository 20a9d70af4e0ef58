import { describe, expect, it } from "vitest";
import { newTenant } from "../../helpers/api";
import { sha256Hex } from "../../helpers/pdf";
import { readSeal } from "../../helpers/seal";
import { placedText, sentTwoSignerEnvelope, signing, storedDocument, TINY_PNG } from "../../helpers/signing-flow";

describe("the completed document of a signing", () => {
  it("is the uploaded document unchanged, followed by the signers' values, the certificate page and the seal as appended revisions", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key, { pages: 3 });
    expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Ann Buyer" } })).status).toBe(200);
    expect((await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: "Cole Signer" } })).status).toBe(200);

    const original = (await storedDocument(e.envelopeId, "original"))!;
    const signed = (await storedDocument(e.envelopeId, "signed"))!;
    // The original's bytes are an unchanged prefix: nothing of it was rewritten.
    expect(await sha256Hex(signed.bytes.subarray(0, original.bytes.length))).toBe(original.sha256);
    expect(signed.bytes.length).toBeLessThan(original.bytes.length + 120_000);
    expect(signed.sha256).toBe(await sha256Hex(signed.bytes));

    const { pages } = await placedText(signed.bytes);
    expect(signed.page_count).toBe(4);
    expect(pages).toHaveLength(4);
    expect(pages[0]).toContain("Ann Buyer"); // buyer_name is on page 1
    expect(pages[1]).toContain("Cole Signer"); // cosigner_signature is on page 2
    expect(pages[2]).toContain("page 3");
    expect(pages[2]).not.toContain("Cole Signer");
    expect(pages[3]).toContain("Signing certificate");

    expect(await readSeal(signed.bytes)).toMatchObject({ signatures: 1, coversWholeFile: true, readerIntegrity: true, pkijsValid: true });
  });
});
