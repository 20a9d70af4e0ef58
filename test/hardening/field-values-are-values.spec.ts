import { describe, expect, it } from "vitest";
import { newTenant } from "../helpers/api";
import { eventsOf } from "../helpers/signing";
import { placedText, sentTwoSignerEnvelope, signing, storedDocument, TINY_PNG } from "../helpers/signing-flow";
import { shardDbOf } from "../helpers/shards";

/** The R2 key of the buyer's drawn signature on a completed envelope of another organization. */
async function someoneElsesDrawing(): Promise<string> {
  const victim = await newTenant({ name: "Other Lender" });
  const e = await sentTwoSignerEnvelope(victim.key, { parallel: true });
  expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Vic Tim" } })).status).toBe(200);
  const row = await shardDbOf(e.envelopeId).prepare("SELECT value FROM envelope_fields WHERE envelope_id = ? AND name = 'buyer_signature'").bind(e.envelopeId).first<{ value: string }>();
  expect(row!.value).toMatch(/^image:signatures\//);
  return row!.value.slice("image:".length);
}

describe("field values are values: only a signer's own drawing is stamped as an image", () => {
  it("a text field holding another organization's signature key is stamped as that text, not as their drawing", async () => {
    const stolen = `image:${await someoneElsesDrawing()}`;
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key, { parallel: true });
    expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: "Ann Buyer", buyer_name: stolen } })).status).toBe(200);
    const done = await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: "Cole Signer" } });
    expect(done.status).toBe(200);
    expect(done.body.data.completed).toBe(true);

    const signed = await storedDocument(e.envelopeId, "signed");
    const { pages } = await placedText(signed!.bytes);
    expect(pages[0]!.replace(/\s+/g, "")).toContain(stolen);
    const completed = (await eventsOf(e.envelopeId)).find((ev) => ev.type === "envelope.completed")!;
    expect(completed.data.values.buyer_name).toBe(stolen);
  });

  it("a text field naming a stored PDF does not leave the envelope unable to complete", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key, { parallel: true });
    const original = await shardDbOf(e.envelopeId).prepare("SELECT r2_key FROM envelope_documents WHERE envelope_id = ? AND kind = 'original'").bind(e.envelopeId).first<{ r2_key: string }>();
    const value = `image:${original!.r2_key}`;
    expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: value } })).status).toBe(200);
    const done = await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: "Cole Signer" } });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ completed: true, envelope_status: "completed" });
    const { pages } = await placedText((await storedDocument(e.envelopeId, "signed"))!.bytes);
    expect(pages[0]!.replace(/\s+/g, "")).toContain(value);
  });

  it("the signer's own drawn signature is still stamped as an image", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key, { parallel: true });
    expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Ann Buyer" } })).status).toBe(200);
    expect((await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: "Cole Signer" } })).status).toBe(200);
    const signed = await storedDocument(e.envelopeId, "signed");
    const latin = new TextDecoder("latin1").decode(signed!.bytes);
    expect(latin).toMatch(/\/Subtype\s*\/Image/);
    const completed = (await eventsOf(e.envelopeId)).find((ev) => ev.type === "envelope.completed")!;
    expect(completed.data.values.buyer_signature).toEqual({ kind: "drawn" });
  });
});
