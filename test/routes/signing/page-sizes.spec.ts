import { describe, expect, it } from "vitest";
import { call, createEnvelope, newTenant } from "../../helpers/api";
import { sendEnvelope } from "../../helpers/signing";
import { signing, sentTwoSignerEnvelope } from "../../helpers/signing-flow";
import { absolute, buildPdf, send, uploadTemplate } from "../../helpers/templates";
import { shardDbOf } from "../../helpers/shards";

// The signing state carries the document's page sizes, so the signing page lays out its pages and
// places the fields before its PDF viewer has loaded (docs/decisions/signing-page.md).

/** A letter page, a landscape page, a letter page turned by /Rotate 90, and a letter page cropped to 540 x 720. */
const MIXED_PAGES = [
  { lines: [{ text: "Retail installment contract", x: 72, y: 720 }] },
  { size: [792, 612] as const, lines: [{ text: "Payment schedule", x: 72, y: 540 }] },
  { rotate: 90 as const, lines: [{ text: "Rotated disclosure", x: 72, y: 720 }] },
  { cropBox: [36, 36, 540, 720] as [number, number, number, number], lines: [{ text: "Cropped addendum", x: 72, y: 700 }] },
];
const MIXED_SIZES = [
  { width: 612, height: 792 },
  { width: 792, height: 612 },
  { width: 792, height: 612 },
  { width: 540, height: 720 },
];

const sendToBuyer = async (key: string, envelopeId: string) => {
  const sent = await sendEnvelope(key, envelopeId, { signers: [{ role: "buyer", email: "ann@example.com", name: "Ann Buyer" }] });
  expect(sent.status).toBe(200);
  return sent.body.data.signers[0].slug as string;
};

describe("the signing state's page sizes", () => {
  it("carries each page's displayed size of a template's mixed-size PDF, in order, with the fields", async () => {
    const t = await newTenant();
    const { bytes } = await buildPdf(MIXED_PAGES);
    const template = await uploadTemplate(t.key, { file: bytes, fields: [absolute("buyer_signature", [{ page: 2, x: 0.1, y: 0.7, w: 0.3, h: 0.08 }], { role: "buyer", required: true })] });
    expect(template.status).toBe(200);
    const envelope = await createEnvelope(t.key, { template_id: template.body.data.template_id });
    const slug = await sendToBuyer(t.key, envelope.envelope_id);

    const state = await signing("GET", slug);
    expect(state.status).toBe(200);
    expect(state.body.data.pages).toEqual(MIXED_SIZES);
    expect(state.body.data.fields).toEqual([expect.objectContaining({ name: "buyer_signature", areas: [{ page: 2, x: 0.1, y: 0.7, w: 0.3, h: 0.08 }] })]);
  });

  it("carries them for a PDF uploaded to the envelope itself, its embedded tags stripped", async () => {
    const t = await newTenant();
    const { bytes } = await buildPdf([
      { lines: [{ text: "Retail installment contract", x: 72, y: 720 }] },
      { size: [792, 612], lines: [{ text: "Buyer: {{buyer_signature;type=signature;role=buyer;required=true}}", x: 72, y: 200 }] },
    ]);
    const envelope = await createEnvelope(t.key);
    const form = new FormData();
    form.append("file", new File([bytes], "contract.pdf", { type: "application/pdf" }));
    expect((await send("PUT", `/partner/envelopes/${envelope.envelope_id}/document`, t.key, form)).status).toBe(200);
    const slug = await sendToBuyer(t.key, envelope.envelope_id);

    const state = (await signing("GET", slug)).body.data;
    expect(state.pages).toEqual([{ width: 612, height: 792 }, { width: 792, height: 612 }]);
    expect(state.fields).toEqual([expect.objectContaining({ name: "buyer_signature", areas: [expect.objectContaining({ page: 2 })] })]);
  });

  it("still answers for an envelope stored before page sizes were recorded: no sizes, the fields and the document as before", async () => {
    const t = await newTenant();
    const e = await sentTwoSignerEnvelope(t.key);
    expect((await signing("GET", e.buyer)).body.data.pages).toEqual([{ width: 612, height: 792 }, { width: 612, height: 792 }]);
    // the row as a document stored before sizes were recorded has it
    await shardDbOf(e.envelopeId).prepare("UPDATE envelope_documents SET page_sizes = NULL WHERE envelope_id = ?").bind(e.envelopeId).run();

    const state = await signing("GET", e.buyer);
    expect(state.status).toBe(200);
    expect(state.body.data.pages).toBeNull();
    expect(state.body.data.fields.map((f: { name: string }) => f.name)).toEqual(["buyer_signature", "buyer_name", "buyer_date", "buyer_vin"]);
    const pdf = await call("GET", `/signing/${e.buyer}/document`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
  });
});
