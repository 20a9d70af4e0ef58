import { env, SELF } from "cloudflare:test";
import { PDFDocument, PDFName, StandardFonts } from "pdf-lib";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { verifyEvidence } from "../../../src/services/evidence/verifier";
import { servicePin } from "../../services/evidence/forge";
import { BASE, call, createEnvelope, newTenant } from "../../helpers/api";
import { auditOf } from "../../helpers/kba";
import { chunk, png, zlibOfZeros } from "../../helpers/png";
import { placedText, signing, storedDocument } from "../../helpers/signing-flow";
import { absolute, buildPdf, uploadTemplate } from "../../helpers/templates";

const sha256 = async (bytes: Uint8Array) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");

/** A small real PNG (2 × 2). */
const smallPng = () => png({ width: 2, height: 2 }, zlibOfZeros(2 * (1 + 2 * 4)));
/** A JPEG's bytes up to its frame header: SOI, APP0 (JFIF), SOF0 naming `w` × `h`, EOI. */
function jpeg(w: number, h: number): Uint8Array {
  const app0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00];
  const sof0 = [0xff, 0xc0, 0x00, 0x11, 0x08, h >> 8, h & 0xff, w >> 8, w & 0xff, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01];
  return new Uint8Array([0xff, 0xd8, ...app0, ...sof0, 0xff, 0xd9]);
}

/** A sent envelope whose buyer signs and attaches `proof_of_income` (any type, required) and `license_photo` (images, optional). */
async function sentWithAttachments() {
  const t = await newTenant({ name: "Lone Star Motors" });
  const { bytes } = await buildPdf([{ lines: [{ text: "Retail installment contract", x: 72, y: 700 }] }]);
  const fields = [
    absolute("buyer_signature", [{ page: 1, x: 0.1, y: 0.5, w: 0.3, h: 0.05 }], { required: true }),
    absolute("proof_of_income", [{ page: 1, x: 0.1, y: 0.7, w: 0.5, h: 0.03 }], { type: "attachment", required: true }),
    absolute("license_photo", [{ page: 1, x: 0.1, y: 0.8, w: 0.5, h: 0.03 }], { type: "attachment", accept: ["image/jpeg", "image/png"] }),
  ];
  const template = await uploadTemplate(t.key, { file: bytes, fields });
  if (template.status !== 200) throw new Error(`template: ${JSON.stringify(template.body)}`);
  const e = await createEnvelope(t.key, { template_id: template.body.data.template_id });
  const sent = await call("POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: { signers: [{ role: "buyer", email: "ana@example.com", name: "Ana Buyer" }] } });
  if (sent.status !== 200) throw new Error(`send: ${JSON.stringify(sent.body)}`);
  return { ...t, envelopeId: e.envelope_id as string, slug: sent.body.data.signers[0].slug as string };
}

async function upload(slug: string, field: string, bytes: Uint8Array, filename = "file.bin", type = "application/octet-stream") {
  const form = new FormData();
  form.append("file", new File([bytes], filename, { type }));
  const res = await SELF.fetch(`${BASE}/signing/${slug}/attachments/${field}`, { method: "PUT", body: form });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

describe("attachment fields: the signer's files", () => {
  it("refuses accept on other field types, and a type outside the three", async () => {
    const t = await newTenant();
    const bad = await uploadTemplate(t.key, { fields: [absolute("sig", [{ page: 1, x: 0.1, y: 0.5, w: 0.3, h: 0.05 }], { accept: ["image/png"] })] });
    expect(bad.status).toBe(422);
    const gif = await uploadTemplate(t.key, { fields: [absolute("photo", [{ page: 1, x: 0.1, y: 0.5, w: 0.3, h: 0.05 }], { type: "attachment", accept: ["image/gif"] })] });
    expect(gif.status).toBe(422);
  });

  it("shows each attachment field with what it accepts; uploads by bytes, replaces, refuses the wrong type; submit needs the required one; the certificate, the audit and the partner's download carry the hash", async () => {
    const s = await sentWithAttachments();
    const state = await signing("GET", s.slug);
    const byName = Object.fromEntries(state.body.data.fields.map((f: { name: string }) => [f.name, f]));
    expect(byName.proof_of_income).toMatchObject({ type: "attachment", required: true, accept: ["application/pdf", "image/jpeg", "image/png"], value: null });
    expect(byName.license_photo).toMatchObject({ type: "attachment", required: false, accept: ["image/jpeg", "image/png"] });

    // submitting without the required file names it
    const early = await signing("POST", s.slug, "submit", { values: { buyer_signature: "Ana Buyer" } });
    expect(early.status).toBe(422);
    expect(early.body.details).toContainEqual(expect.objectContaining({ path: ["values", "proof_of_income"], code: "required" }));

    // a PDF where only images go: 415, whatever the declared type
    const { bytes: pdf } = await buildPdf([{ lines: [{ text: "Pay stub, October", x: 72, y: 700 }] }]);
    const wrong = await upload(s.slug, "license_photo", pdf, "license.jpg", "image/jpeg");
    expect(wrong.status).toBe(415);
    expect(wrong.body.code).toBe("attachment_type_not_accepted");

    const first = await upload(s.slug, "proof_of_income", smallPng(), "paystub.png", "image/png");
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ field: "proof_of_income", content_type: "image/png", filename: "paystub.png", sha256: await sha256(smallPng()) });
    // replaced before submit: the PDF now
    const second = await upload(s.slug, "proof_of_income", pdf, "paystub.pdf", "application/pdf");
    expect(second.status).toBe(200);
    expect(second.body.data).toMatchObject({ content_type: "application/pdf", filename: "paystub.pdf", size: pdf.length, sha256: await sha256(pdf) });
    const photo = await upload(s.slug, "license_photo", jpeg(1600, 1200), "license.jpg", "image/jpeg");
    expect(photo.status, JSON.stringify(photo.body)).toBe(200);

    const shown = await signing("GET", s.slug);
    expect(shown.body.data.fields.find((f: { name: string }) => f.name === "proof_of_income").value).toMatchObject({ kind: "attachment", filename: "paystub.pdf", sha256: await sha256(pdf) });

    // a value for an attachment field in submit is refused, naming the upload
    const inline = await signing("POST", s.slug, "submit", { values: { buyer_signature: "Ana Buyer", proof_of_income: "paystub.pdf" } });
    expect(inline.status).toBe(422);

    const done = await signing("POST", s.slug, "submit", { values: { buyer_signature: "Ana Buyer" } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.data.completed).toBe(true);
    // after submit nothing changes any more
    expect((await upload(s.slug, "license_photo", jpeg(10, 10))).status).toBeGreaterThanOrEqual(409);

    const audit = (await auditOf(s.envelopeId)).filter((a) => a.action === "signer.attachment_uploaded");
    expect(audit.map((a) => [a.data.field, a.data.sha256, a.data.replaced_sha256])).toEqual([
      ["proof_of_income", await sha256(smallPng()), null],
      ["proof_of_income", await sha256(pdf), await sha256(smallPng())],
      ["license_photo", await sha256(jpeg(1600, 1200)), null],
    ]);
    expect(audit[2]!.data).toMatchObject({ width: 1600, height: 1200, content_type: "image/jpeg" });

    const signed = await storedDocument(s.envelopeId, "signed");
    const text = (await placedText(signed!.bytes)).pages.join(" ");
    expect(text).toContain("Attached: paystub.pdf");
    expect(text).toContain(`Attachment proof_of_income: paystub.pdf (application/pdf, ${pdf.length} bytes, SHA-256 ${await sha256(pdf)})`);

    const url = await call("GET", `/partner/envelopes/${s.envelopeId}/attachments/proof_of_income/signed-url`, { key: s.key });
    expect(url.status, JSON.stringify(url.body)).toBe(200);
    expect(url.body.data).toMatchObject({ filename: "paystub.pdf", content_type: "application/pdf", sha256: await sha256(pdf) });
    const download = await SELF.fetch(url.body.data.signed_url);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/pdf");
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="paystub.pdf"');
    expect(await sha256(new Uint8Array(await download.arrayBuffer()))).toBe(await sha256(pdf));
    const forged = await SELF.fetch(url.body.data.signed_url.replace(/sig=(.)/, (_: string, c: string) => `sig=${c === "0" ? "1" : "0"}`));
    expect(forged.status).toBe(403);
    const none = await call("GET", `/partner/envelopes/${s.envelopeId}/attachments/buyer_signature/signed-url`, { key: s.key });
    expect(none.status).toBe(404);

    // vaulted: the evidence bundle carries each file, listed and hashed by the signed manifest, and verifies
    const vaulted = await call("POST", `/partner/envelopes/${s.envelopeId}/vault-in-signed`, { key: s.key, body: {} });
    expect(vaulted.status, JSON.stringify(vaulted.body)).toBe(200);
    const evidence = await call("GET", `/partner/envelopes/${s.envelopeId}/vault/evidence/signed-url`, { key: s.key });
    expect(evidence.status, JSON.stringify(evidence.body)).toBe(200);
    const files = unzipSync(new Uint8Array(await (await SELF.fetch(evidence.body.data.signed_url)).arrayBuffer()));
    const manifest = JSON.parse(new TextDecoder().decode(files["manifest.json"]!));
    expect(manifest.attachments).toEqual([
      { file: "attachment-proof_of_income.pdf", field: "proof_of_income", role: "buyer", filename: "paystub.pdf", content_type: "application/pdf", sha256: await sha256(pdf), size_bytes: pdf.length },
      { file: "attachment-license_photo.jpg", field: "license_photo", role: "buyer", filename: "license.jpg", content_type: "image/jpeg", sha256: await sha256(jpeg(1600, 1200)), size_bytes: jpeg(1600, 1200).length },
    ]);
    expect(await sha256(files["attachment-proof_of_income.pdf"]!)).toBe(await sha256(pdf));
    expect(manifest.files.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(["attachment-proof_of_income.pdf", "attachment-license_photo.jpg"]));
    const verdict = await verifyEvidence(files, async (b: Uint8Array) => sha256(b), { sealSha256: [await servicePin()], tsaSha256: [] });
    expect(verdict.verified, JSON.stringify(verdict)).toBe(true);
  });

  it("refuses hostile files: a PDF decompression bomb, an image with absurd dimensions, no file at all, and another signer's field name", async () => {
    const s = await sentWithAttachments();
    // the decode budget of uploads
    const doc = await PDFDocument.create();
    const page = doc.addPage([612, 792]);
    page.drawText("Pay stub", { x: 72, y: 700, font: await doc.embedFont(StandardFonts.Helvetica), size: 12 });
    const cs = new CompressionStream("deflate");
    const writer = cs.writable.getWriter();
    const out = new Response(cs.readable).arrayBuffer();
    const piece = new TextEncoder().encode("q 1 0 0 1 0 0 cm Q\n".repeat(55_000));
    for (let sent = 0; sent < 100 * 1024 * 1024; sent += piece.length) await writer.write(piece);
    await writer.close();
    page.node.set(PDFName.of("Contents"), doc.context.register(doc.context.stream(new Uint8Array(await out), { Filter: "FlateDecode" })));
    const bomb = await doc.save({ useObjectStreams: false });
    expect((await upload(s.slug, "proof_of_income", bomb, "stub.pdf")).status).toBe(413);

    const huge = png({ width: 100_000, height: 100_000 }, zlibOfZeros(16));
    const pixels = await upload(s.slug, "license_photo", huge, "x.png");
    expect(pixels.status).toBe(422);
    expect(pixels.body.code).toBe("attachment_dimensions");
    const noHeader = await upload(s.slug, "license_photo", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...chunk("IEND")]), "x.png");
    expect(noHeader.status).toBe(422);

    const tooBig = await upload(s.slug, "proof_of_income", new Uint8Array(10 * 1024 * 1024 + 1).fill(0x20), "big.pdf");
    expect(tooBig.status).toBe(413);

    const form = new FormData();
    form.append("other", "x");
    const missing = await SELF.fetch(`${BASE}/signing/${s.slug}/attachments/proof_of_income`, { method: "PUT", body: form });
    expect(missing.status).toBe(400);

    expect((await upload(s.slug, "buyer_signature", smallPng())).status).toBe(404);
    expect((await upload(s.slug, "no_such_field", smallPng())).status).toBe(404);
    // nothing was stored by any of these
    expect((await auditOf(s.envelopeId)).filter((a) => a.action === "signer.attachment_uploaded")).toHaveLength(0);
    expect((await env.DOCS.list({ prefix: `documents/${s.orgId}/` })).objects.filter((o) => o.key.includes("-attachment."))).toHaveLength(0);
  });
});
