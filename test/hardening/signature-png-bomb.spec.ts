import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { newTenant } from "../helpers/api";
import { sentTwoSignerEnvelope, signing, storedDocument, TINY_PNG } from "../helpers/signing-flow";
import { chunk, dataUrl, drawnSignature, paletteSignature, png, zlibOfZeros } from "../helpers/png";
import { shardDbOf } from "../helpers/shards";

/** A ~250 KB PNG declaring 8000x8000 RGBA pixels: decoded, over a gigabyte. */
const BOMB = png({ width: 8000, height: 8000 }, zlibOfZeros(8000 * (1 + 8000 * 4)));

const bytesOf = (width: number, height: number, bitsPerPixel: number) => height * (1 + Math.ceil((width * bitsPerPixel) / 8));

async function buyerSubmits(slug: string, signature: string) {
  return signing("POST", slug, "submit", { values: { buyer_signature: signature, buyer_name: "Ann Buyer" } });
}

async function signerStatus(envelopeId: string, role: string) {
  return (await shardDbOf(envelopeId).prepare("SELECT status FROM signers WHERE envelope_id = ? AND role = ?").bind(envelopeId, role).first<{ status: string }>())!.status;
}

describe("a drawn signature cannot be a memory bomb", () => {
  it("a PNG declaring 8000x8000 pixels is refused at submit with 422 naming the 2000x1000 limit, and the service keeps serving", async () => {
    expect(BOMB.length).toBeLessThan(512 * 1024);
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    const res = await buyerSubmits(e.buyer, dataUrl(BOMB));
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([
      expect.objectContaining({ path: ["values", "buyer_signature"], code: "invalid_value", message: expect.stringContaining("8000x8000 pixels; a drawn signature is at most 2000x1000") }),
    ]);
    expect(await signerStatus(e.envelopeId, "buyer")).not.toBe("completed");
    expect((await signing("GET", e.buyer)).status).toBe(200);
    expect((await buyerSubmits(e.buyer, TINY_PNG)).status).toBe(200);
  });

  it.each([
    ["16-bit RGBA", { width: 40, height: 20, bitDepth: 16, colourType: 6 }, 64, "16-bit RGBA"],
    ["16-bit greyscale", { width: 40, height: 20, bitDepth: 16, colourType: 0 }, 16, "16-bit greyscale"],
    ["an unknown colour type", { width: 40, height: 20, bitDepth: 8, colourType: 5 }, 8, "colour type 5"],
    ["an interlaced image", { width: 40, height: 20, bitDepth: 8, colourType: 6, interlace: 1 }, 32, "interlaced"],
  ])("%s is refused with 422 naming what a signature may be", async (_, header, bitsPerPixel, named) => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    const image = png(header, zlibOfZeros(bytesOf(header.width, header.height, bitsPerPixel)));
    const res = await buyerSubmits(e.buyer, dataUrl(image));
    expect(res.status).toBe(422);
    expect(res.body.details[0]).toMatchObject({ path: ["values", "buyer_signature"], message: expect.stringContaining(named) });
    expect(await signerStatus(e.envelopeId, "buyer")).not.toBe("completed");
  });

  it("an animated PNG is refused: each of its frames would decode to full RGBA", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    const actl = chunk("acTL", Uint8Array.from([0, 0, 0, 2, 0, 0, 0, 0]));
    const res = await buyerSubmits(e.buyer, dataUrl(png({ width: 40, height: 20 }, zlibOfZeros(bytesOf(40, 20, 32)), [actl])));
    expect(res.status).toBe(422);
    expect(res.body.details[0].message).toContain("animated");
  });

  it("a small header whose pixel data inflates far past it (64 MB from 200x100) is refused with 422", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    const res = await buyerSubmits(e.buyer, dataUrl(png({ width: 200, height: 100 }, zlibOfZeros(64 * 1024 * 1024))));
    expect(res.status).toBe(422);
    expect(res.body.details[0].message).toContain(`inflates past the ${bytesOf(200, 100, 32)} bytes its header declares`);
    expect((await signing("GET", e.buyer)).status).toBe(200);
  });

  it("ordinary signatures still complete: a 1200x340 RGBA pad drawing and a 4-bit palette image", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    expect((await buyerSubmits(e.buyer, dataUrl(drawnSignature()))).status).toBe(200);
    const done = await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: dataUrl(paletteSignature()) } });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ completed: true, envelope_status: "completed" });
    const signed = await storedDocument(e.envelopeId, "signed");
    expect(new TextDecoder("latin1").decode(signed!.bytes).match(/\/Subtype\s*\/Image/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it("a bomb stored before the limits existed is refused at completion (422) instead of decoded; the envelope stays open", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    expect((await buyerSubmits(e.buyer, TINY_PNG)).status).toBe(200);
    const stored = await shardDbOf(e.envelopeId).prepare("SELECT value FROM envelope_fields WHERE envelope_id = ? AND name = 'buyer_signature'").bind(e.envelopeId).first<{ value: string }>();
    // what an earlier submit, taking only the magic bytes and the size, would have stored
    await env.DOCS.put(stored!.value.slice("image:".length), BOMB);

    const res = await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: "Cole Signer" } });
    expect(res.status).toBe(422);
    expect(res.body.error).toContain("8000x8000 pixels; a drawn signature is at most 2000x1000");
    const envelope = await shardDbOf(e.envelopeId).prepare("SELECT status FROM envelopes WHERE id = ?").bind(e.envelopeId).first<{ status: string }>();
    expect(envelope!.status).not.toBe("completed");
    expect(await signerStatus(e.envelopeId, "cosigner")).not.toBe("completed");
    expect((await signing("GET", e.cosigner)).status).toBe(200);
  });
});
