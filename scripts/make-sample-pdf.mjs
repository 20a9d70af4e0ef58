#!/usr/bin/env node
// Writes examples/sample-contract.pdf, the document the README's quickstart signs:
//   npm run sample-pdf            (or: node scripts/make-sample-pdf.mjs [out.pdf])
// A one-page retail installment contract that places its two fields both ways the service knows:
//   - an embedded tag, `{{buyer_name;type=text;role=buyer;required=true;width=220;height=18}}`, drawn in the
//     page's text: the upload turns it into a field and strips the tag's text from the stored PDF;
//   - the label "Buyer signature:", which the quickstart's `fields_json` names as an anchor
//     (`"placement":{"mode":"anchor","anchor_text":"Buyer signature:",…}`) to place the signature field.
// The bytes are stable (no clock, no random id): the same pdf-lib makes the same file, so a change to the
// committed PDF is a change to this script.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PDFDocument, StandardFonts, rgb } from "pdf-lib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = process.argv[2] ?? join(root, "examples", "sample-contract.pdf");
const FIXED_DATE = new Date("2026-01-01T00:00:00.000Z");

// updateMetadata: false keeps pdf-lib from stamping the current time and its own producer
const doc = await PDFDocument.create({ updateMetadata: false });
doc.setTitle("Retail Installment Sale Contract (sample)");
doc.setAuthor("esign-vault examples");
doc.setCreator("scripts/make-sample-pdf.mjs");
doc.setProducer("pdf-lib");
doc.setCreationDate(FIXED_DATE);
doc.setModificationDate(FIXED_DATE);

const font = await doc.embedFont(StandardFonts.Helvetica);
const bold = await doc.embedFont(StandardFonts.HelveticaBold);
const page = doc.addPage([612, 792]); // US Letter, in points
const ink = rgb(0, 0, 0);
const grey = rgb(0.45, 0.45, 0.45);
let y = 730;
const text = (s, { x = 72, size = 10, f = font, color = ink, gap = 16 } = {}) => {
  page.drawText(s, { x, y, size, font: f, color });
  y -= gap;
};
const rule = (x, width) => page.drawLine({ start: { x, y: y - 3 }, end: { x: x + width, y: y - 3 }, thickness: 0.6, color: grey });

text("RETAIL INSTALLMENT SALE CONTRACT", { size: 16, f: bold, gap: 20 });
text("Sample for the esign-vault quickstart. Not a real contract.", { size: 9, color: grey, gap: 28 });
text("Seller (creditor): Demo Dealer, 100 Main Street, Springfield", { gap: 14 });
text("Contract no. 1042     Date: January 1, 2026", { gap: 28 });

text("Vehicle: 2024 Example Sedan     VIN 1HGCM82633A004352", { f: bold, gap: 22 });
const terms = [
  ["Cash price", "$24,000.00"],
  ["Down payment", "$4,000.00"],
  ["Amount financed", "$20,000.00"],
  ["Annual percentage rate", "6.90%"],
  ["Finance charge", "$3,704.80"],
  ["Total of payments (60 monthly payments of $395.08)", "$23,704.80"],
];
for (const [label, value] of terms) {
  page.drawText(value, { x: 540 - font.widthOfTextAtSize(value, 10), y, size: 10, font, color: ink });
  text(label, { gap: 15 });
}
y -= 12;
for (const line of [
  "The buyer agrees to pay the seller the total of payments according to the payment schedule above.",
  "The seller may assign this contract and its rights to a finance company, which then holds control",
  "of the authoritative electronic copy. The buyer keeps a copy of this contract, marked as a copy.",
]) {
  text(line, { gap: 14 });
}
y -= 26;

// the embedded tag: the upload makes it the buyer's name field (220 x 18 pt) and removes its text
text("Buyer name:", { f: bold, gap: 0 });
text("{{buyer_name;type=text;role=buyer;required=true;width=220;height=18}}", { x: 160, size: 8, gap: 40 });

// the anchor: the quickstart's fields_json places the buyer's signature from this label
text("Buyer signature:", { f: bold, gap: 0 });
rule(160, 260);
text("", { gap: 40 });
text("Seller: Demo Dealer, by its finance manager", { size: 9, color: grey });

const bytes = await doc.save({ useObjectStreams: false });
writeFileSync(out, bytes);
console.log(`wrote ${out} (${bytes.length} bytes)`);
