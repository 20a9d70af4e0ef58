import { env } from "cloudflare:test";
import { getDocumentProxy } from "unpdf";
import { call, createEnvelope } from "./api";
import { sendEnvelope } from "./signing";
import { absolute, buildPdf, uploadTemplate } from "./templates";

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

export const signing = (method: string, slug: string, action = "", body?: unknown, headers: Record<string, string> = {}) =>
  call(method, `/signing/${slug}${action ? `/${action}` : ""}`, { body, headers });

export async function storedDocument(envelopeId: string, kind: "original" | "signed") {
  const row = await env.DB.prepare("SELECT r2_key, sha256, page_count FROM envelope_documents WHERE envelope_id = ? AND kind = ?")
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
