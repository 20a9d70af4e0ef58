import { env } from "cloudflare:test";
import { PDFDocument, PDFName, StandardFonts } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { MAX_DECODED_OBJECT_STREAM_BYTES, MAX_DECODED_STREAM_BYTES } from "../../src/pdf";
import { call, createEnvelope, newTenant } from "../helpers/api";
import { makePdf } from "../helpers/pdf";
import { memberToken, putTemplateDocument, send, uploadTemplate } from "../helpers/templates";
import { paperEnvelope, uploadPaper } from "../helpers/vault";

/** Deflates `total` bytes of a repeated content-stream pattern without ever holding them: ~100 KB out for 100 MB in. */
async function deflatedPattern(total: number): Promise<Uint8Array> {
  const piece = new TextEncoder().encode("q 1 0 0 1 0 0 cm Q\n".repeat(55_000)); // ~1 MB
  const cs = new CompressionStream("deflate");
  const writer = cs.writable.getWriter();
  const done = new Response(cs.readable).arrayBuffer();
  for (let sent = 0; sent < total; sent += piece.length) await writer.write(piece);
  await writer.close();
  return new Uint8Array(await done);
}

/** A one-page PDF whose page content is a single stream that inflates to about `inflated` bytes. */
async function bombPdf(inflated: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  page.drawText("Retail installment contract", { x: 72, y: 700, font: await doc.embedFont(StandardFonts.Helvetica), size: 12 });
  const stream = doc.context.stream(await deflatedPattern(inflated), { Filter: "FlateDecode" });
  page.node.set(PDFName.of("Contents"), doc.context.register(stream));
  return doc.save({ useObjectStreams: false });
}

const BOMB_INFLATES_TO = 100 * 1024 * 1024;

async function r2Keys(prefix: string): Promise<string[]> {
  return (await env.DOCS.list({ prefix })).objects.map((o) => o.key);
}

describe("a compressed PDF that inflates past the budget is refused and nothing is stored", () => {
  let bomb: Uint8Array;
  const theBomb = async () => (bomb ??= await bombPdf(BOMB_INFLATES_TO));

  it(
    "a partner's template upload: 413 naming the limit, no template, no R2 object, and the Idempotency-Key released",
    async () => {
      const t = await newTenant();
      const file = await theBomb();
      expect(file.byteLength).toBeLessThan(1024 * 1024);
      const headers = { "Idempotency-Key": "bomb-then-fixed" };
      const res = await uploadTemplate(t.key, { file, headers });
      expect(res.status).toBe(413);
      expect(res.body.error).toBe(`The PDF decompresses to more than ${MAX_DECODED_STREAM_BYTES / (1024 * 1024)} MB in one stream; such files are refused`);
      expect(res.body.details).toEqual({ decoded_limit_bytes: MAX_DECODED_STREAM_BYTES });
      expect(await r2Keys(`documents/${t.orgId}/`)).toEqual([]);
      const templates = await env.DB.prepare("SELECT COUNT(*) AS n FROM templates WHERE org_id = ?").bind(t.orgId).first<{ n: number }>();
      expect(templates!.n).toBe(0);

      // The key was released: the same key with the corrected upload runs.
      const fixed = await uploadTemplate(t.key, { file: await makePdf({ text: "Retail installment contract" }), headers });
      expect(fixed.status).toBe(200);
      expect(fixed.headers.get("Idempotent-Replayed")).toBeNull();
    },
    60_000,
  );

  it(
    "a console template document and an envelope document are refused the same way",
    async () => {
      const t = await newTenant();
      const admin = await memberToken(t.orgId, "admin");
      const created = await call("POST", "/templates", { bearer: admin, body: { name: "Bomb" } });
      const put = await putTemplateDocument(admin, created.body.data.template_id, await theBomb());
      expect(put.status).toBe(413);
      expect(put.body.details).toEqual({ decoded_limit_bytes: MAX_DECODED_STREAM_BYTES });

      const e = await createEnvelope(t.key);
      const form = new FormData();
      form.append("file", new File([await theBomb()], "contract.pdf", { type: "application/pdf" }));
      const attached = await send("PUT", `/partner/envelopes/${e.envelope_id}/document`, t.key, form);
      expect(attached.status).toBe(413);
      expect(attached.body.details).toEqual({ decoded_limit_bytes: MAX_DECODED_STREAM_BYTES });
      expect((await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key })).body.data.status).toBe("pending");
      expect(await r2Keys(`documents/${t.orgId}/`)).toEqual([]);
    },
    60_000,
  );

  it(
    "a paper vault-in upload: 413, the envelope unchanged and nothing in the vault",
    async () => {
      const t = await newTenant();
      const e = await paperEnvelope(t.key);
      const res = await uploadPaper(t.key, e.envelope_id, await theBomb());
      expect(res.status).toBe(413);
      expect(res.body.details).toEqual({ decoded_limit_bytes: MAX_DECODED_STREAM_BYTES });
      expect((await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key })).body.data.status).toBe(e.status);
      expect(await r2Keys(`vault/${t.orgId}/`)).toEqual([]);
    },
    60_000,
  );

  it(
    "object streams that together inflate past their budget are refused, though each is under the one-stream limit",
    async () => {
      const t = await newTenant();
      const doc = await PDFDocument.create();
      doc.addPage([612, 792]).drawText("Contract", { x: 72, y: 700, font: await doc.embedFont(StandardFonts.Helvetica), size: 12 });
      const tenMb = await deflatedPattern(10 * 1024 * 1024);
      for (let i = 0; i < 2; i++) doc.context.register(doc.context.stream(tenMb, { Type: "ObjStm", N: 0, First: 0, Filter: "FlateDecode" }));
      const res = await uploadTemplate(t.key, { file: await doc.save({ useObjectStreams: false }) });
      expect(res.status).toBe(413);
      expect(res.body.details).toEqual({ decoded_limit_bytes: MAX_DECODED_OBJECT_STREAM_BYTES });
      expect(res.body.error).toMatch(/object streams/);
      expect(await r2Keys(`documents/${t.orgId}/`)).toEqual([]);
    },
    60_000,
  );

  it("an ordinary compressed PDF, fonts and all, is well inside the budget", async () => {
    const t = await newTenant();
    const res = await uploadTemplate(t.key, { file: await bombPdf(2 * 1024 * 1024) });
    expect(res.status).toBe(200);
  });
});
