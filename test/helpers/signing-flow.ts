import { env } from "cloudflare:test";
import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream, type PDFPage } from "pdf-lib";
import { getDocumentProxy } from "unpdf";
import { call, createEnvelope } from "./api";
import { shardDbOf } from "./shards";
import { sendEnvelope } from "./signing";
import { absolute, buildPdf, choice, uploadTemplate } from "./templates";

/** A 1x1 PNG: the smallest drawn signature the API accepts. */
export const TINY_PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

export const AREAS = {
  buyer_signature: { page: 1, x: 0.1, y: 0.6, w: 0.3, h: 0.05 },
  buyer_name: { page: 1, x: 0.1, y: 0.3, w: 0.4, h: 0.04 },
  buyer_date: { page: 2, x: 0.55, y: 0.2, w: 0.3, h: 0.04 },
  buyer_vin: { page: 1, x: 0.5, y: 0.1, w: 0.4, h: 0.03 },
  cosigner_signature: { page: 2, x: 0.1, y: 0.7, w: 0.3, h: 0.05 },
  cosigner_agree: { page: 2, x: 0.1, y: 0.5, w: 0.03, h: 0.03 },
} as const;

/**
 * A two-role template (buyer, cosigner) on a pdf-lib-made `pages`-page letter PDF, an envelope from
 * it, sent: buyer signs first (order 1), cosigner second (order 2) unless `parallel`.
 */
export async function sentTwoSignerEnvelope(key: string, opts: { pages?: number; parallel?: boolean } = {}) {
  const pages = Array.from({ length: opts.pages ?? 2 }, (_, i) => ({ lines: [{ text: `Retail installment contract, page ${i + 1}`, x: 72, y: 740 }] }));
  const { bytes } = await buildPdf(pages);
  const fields = [
    absolute("buyer_signature", [AREAS.buyer_signature], { role: "buyer", required: true }),
    absolute("buyer_name", [AREAS.buyer_name], { role: "buyer", type: "text", required: true }),
    absolute("buyer_date", [AREAS.buyer_date], { role: "buyer", type: "date" }),
    absolute("buyer_vin", [AREAS.buyer_vin], { role: "buyer", type: "text", readonly: true, default_value: "1HGCM82633A004352" }),
    absolute("cosigner_signature", [AREAS.cosigner_signature], { role: "cosigner", required: true }),
    absolute("cosigner_agree", [AREAS.cosigner_agree], { role: "cosigner", type: "checkbox" }),
  ];
  const template = await uploadTemplate(key, { file: bytes, fields });
  if (template.status !== 200) throw new Error(`template upload failed: ${JSON.stringify(template.body)}`);
  const envelope = await createEnvelope(key, { template_id: template.body.data.template_id });
  const sent = await sendEnvelope(key, envelope.envelope_id, {
    signers: [
      { role: "buyer", email: "ann@example.com", name: "Ann Buyer", routing_order: 1 },
      { role: "cosigner", email: "cole@example.com", name: "Cole Signer", routing_order: opts.parallel ? 1 : 2 },
    ],
  });
  if (sent.status !== 200) throw new Error(`send failed: ${JSON.stringify(sent.body)}`);
  const slug = (role: string) => sent.body.data.signers.find((s: { role: string }) => s.role === role).slug as string;
  return { envelopeId: envelope.envelope_id, buyer: slug("buyer"), cosigner: slug("cosigner"), original: bytes };
}

export const CHOICE_OPTIONS = {
  plan: ["Monthly", "Quarterly", "Yearly"],
  term: ["12 months", "24 months", "36 months"],
  delivery: ["Pickup", "Shipping"],
} as const;

export const CHOICE_AREAS = {
  buyer_signature: { page: 1, x: 0.1, y: 0.8, w: 0.3, h: 0.05 },
  /** a select: the chosen text in its area */
  plan: { page: 1, x: 0.1, y: 0.2, w: 0.3, h: 0.04 },
  /** a radio placed one area per option (DocuSign's radio group): a filled circle in the chosen one */
  term: [
    { page: 1, x: 0.1, y: 0.35, w: 0.03, h: 0.03 },
    { page: 1, x: 0.1, y: 0.4, w: 0.03, h: 0.03 },
    { page: 1, x: 0.1, y: 0.45, w: 0.03, h: 0.03 },
  ],
  /** a radio in one area: the chosen text in it */
  delivery: { page: 1, x: 0.5, y: 0.2, w: 0.3, h: 0.04 },
} as const;

/**
 * A sent one-signer (buyer) envelope whose template has a required signature, a required select
 * (`plan`), a required radio placed one area per option (`term`) and an optional radio in one area
 * (`delivery`, default "Pickup"). Labels for the options are drawn next to the term areas.
 */
export async function sentChoiceEnvelope(key: string) {
  const lines = CHOICE_OPTIONS.term.map((label, i) => ({ text: label, x: 612 * 0.15, y: 792 * (1 - CHOICE_AREAS.term[i]!.y - 0.025), size: 10 }));
  const { bytes } = await buildPdf([{ lines: [{ text: "Retail installment contract: payment plan", x: 72, y: 740 }, ...lines] }]);
  const fields = [
    absolute("buyer_signature", [CHOICE_AREAS.buyer_signature], { required: true }),
    choice("plan", "select", [...CHOICE_OPTIONS.plan], [CHOICE_AREAS.plan], { required: true }),
    choice("term", "radio", [...CHOICE_OPTIONS.term], [...CHOICE_AREAS.term], { required: true }),
    choice("delivery", "radio", [...CHOICE_OPTIONS.delivery], [CHOICE_AREAS.delivery], { default_value: "Pickup" }),
  ];
  const template = await uploadTemplate(key, { file: bytes, fields });
  if (template.status !== 200) throw new Error(`template upload failed: ${JSON.stringify(template.body)}`);
  const envelope = await createEnvelope(key, { template_id: template.body.data.template_id });
  const sent = await sendEnvelope(key, envelope.envelope_id, { signers: [{ role: "buyer", email: "ann@example.com", name: "Ann Buyer", routing_order: 1 }] });
  if (sent.status !== 200) throw new Error(`send failed: ${JSON.stringify(sent.body)}`);
  return { envelopeId: envelope.envelope_id, templateId: template.body.data.template_id as string, buyer: sent.body.data.signers[0].slug as string, original: bytes };
}

export const signing = (method: string, slug: string, action = "", body?: unknown, headers: Record<string, string> = {}) =>
  call(method, `/signing/${slug}${action ? `/${action}` : ""}`, { body, headers });

export async function storedDocument(envelopeId: string, kind: "original" | "signed") {
  const row = await shardDbOf(envelopeId).prepare("SELECT r2_key, sha256, page_count FROM envelope_documents WHERE envelope_id = ? AND kind = ?")
    .bind(envelopeId, kind)
    .first<{ r2_key: string; sha256: string; page_count: number }>();
  if (!row) return null;
  const object = await env.DOCS.get(row.r2_key);
  return { ...row, bytes: new Uint8Array(await object!.arrayBuffer()) };
}

export type PlacedText = { page: number; str: string; x: number; baselineY: number };

/** Every text item with its origin as fractions of the displayed page (top-left origin). */
export async function placedText(bytes: Uint8Array): Promise<{ items: PlacedText[]; pages: string[] }> {
  const pdf = await getDocumentProxy(bytes.slice());
  const items: PlacedText[] = [];
  const pages: string[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const viewport = page.getViewport({ scale: 1 });
    const content = await page.getTextContent();
    const texts: string[] = [];
    for (const item of content.items as { str: string; transform: number[] }[]) {
      if (!("str" in item)) continue;
      texts.push(item.str);
      const [vx, vy] = viewport.convertToViewportPoint(item.transform[4]!, item.transform[5]!);
      items.push({ page: n, str: item.str, x: vx / viewport.width, baselineY: vy / viewport.height });
    }
    pages.push(texts.join(" "));
  }
  return { items, pages };
}

export type FilledCircle = { page: number; x: number; y: number; r: number };

/**
 * Every filled circle drawn on the pages (a path of four Bézier curves, then a fill): its centre as
 * fractions of the displayed page (through pdf.js's viewport) and its radius in points. Reads the
 * content streams with pdf-lib; circles drawn under a `cm` other than the page's own are not expected
 * (pdf-lib draws them in user space).
 */
export async function filledCircles(bytes: Uint8Array): Promise<FilledCircle[]> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const pdf = await getDocumentProxy(bytes.slice());
  const circles: FilledCircle[] = [];
  for (const [i, page] of doc.getPages().entries()) {
    const viewport = (await pdf.getPage(i + 1)).getViewport({ scale: 1 });
    let points: [number, number][] = [];
    let curves = 0;
    let operands: number[] = [];
    for (const token of contentOf(doc, page).split(/\s+/)) {
      if (token === "") continue;
      const n = Number(token);
      if (Number.isFinite(n) && /^[-+.\d]/.test(token)) {
        operands.push(n);
        continue;
      }
      if (token === "m") [points, curves] = [[[operands[0]!, operands[1]!]], 0];
      else if (token === "c") {
        for (let k = 0; k + 1 < operands.length; k += 2) points.push([operands[k]!, operands[k + 1]!]);
        curves++;
      } else if (/^(f\*?|F|B\*?|b\*?)$/.test(token) && curves === 4) {
        const xs = points.map((p) => p[0]);
        const ys = points.map((p) => p[1]);
        const [cx, cy] = [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
        const [vx, vy] = viewport.convertToViewportPoint(cx, cy);
        circles.push({ page: i + 1, x: vx / viewport.width, y: vy / viewport.height, r: (Math.max(...xs) - Math.min(...xs)) / 2 });
        [points, curves] = [[], 0];
      } else if (/^(n|S|s|re|f\*?|F|B\*?|b\*?)$/.test(token)) [points, curves] = [[], 0];
      operands = [];
    }
  }
  return circles;
}

function contentOf(doc: PDFDocument, page: PDFPage): string {
  const contents = page.node.Contents();
  const streams = contents instanceof PDFArray ? contents.asArray().map((ref) => doc.context.lookup(ref)) : [contents];
  return streams
    .map((stream) => (stream instanceof PDFRawStream ? new TextDecoder("latin1").decode(decodePDFRawStream(stream).decode()) : ""))
    .join("\n");
}

