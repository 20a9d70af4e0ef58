import { PDFDocument, PDFName, PDFString, StandardFonts } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { closePdf, openPdf } from "../../../src/pdf/open-pdf";
import { resolveFields, scanDocument } from "../../../src/services/documents/place-fields";
import { stripTags } from "../../../src/pdf/text/strip-tags";
import { TemplateFieldsInputSchema } from "../../../src/services/templates/schema";
import { anchor } from "../../helpers/templates";

/** A page whose content stream is written by hand, to show tags the way word processors do. */
async function handWritten(content: string) {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.node.setFontDictionary(PDFName.of("F1"), font.ref);
  page.node.set(PDFName.of("Contents"), doc.context.register(doc.context.flateStream(content)));
  return doc.save();
}

const CONTENT = [
  // a tag split over two strings of a TJ array with a kerning adjustment, text after it
  "BT /F1 12 Tf 72 700 Td [({{sig;ty) -20 (pe=signature;role=buyer}}) ( after the tag)] TJ ET",
  // a tag shown by the ' operator (next line), text after it in the same string
  "BT /F1 12 Tf 14 TL 72 600 Td (first line) Tj ({{ini;type=initials;role=buyer}} next line) ' ET",
  // character and word spacing in effect
  "BT /F1 10 Tf 0.5 Tc 3 Tw 72 500 Td (Pay: {{amt;type=number;role=buyer}} USD) Tj ET",
  // the " operator sets word and character spacing itself
  "BT /F1 10 Tf 14 TL 72 400 Td 2 0.4 (Agree {{ok;type=checkbox;role=buyer}} here) \" ET",
].join("\n");

async function scan(bytes: Uint8Array, anchors: string[]) {
  const pdf = await openPdf(bytes.slice());
  try {
    const fields = TemplateFieldsInputSchema.parse(anchors.map((a, i) => anchor(`f${i}`, { anchor_text: a, w: 0.01, h: 0.01 })));
    const result = await scanDocument(pdf, { tags: true, fields });
    return { tags: result.tags, fields: resolveFields(fields, result, []).fields };
  } finally {
    await closePdf(pdf);
  }
}

describe("stripping embedded tags from content streams", () => {
  it("removes tags split over TJ strings, shown by ' and \", under Tc and Tw, and leaves the text after them in place", async () => {
    const original = await handWritten(CONTENT);
    const before = await scan(original, ["after the tag", "next line", "usd", "here"]);
    expect(before.tags.map((t) => t.raw.replace(/\s+/g, ""))).toEqual([
      "{{sig;type=signature;role=buyer}}",
      "{{ini;type=initials;role=buyer}}",
      "{{amt;type=number;role=buyer}}",
      "{{ok;type=checkbox;role=buyer}}",
    ]);
    const tags = new Map([[1, before.tags.map((t) => ({ key: t.raw.replace(/\s+/g, ""), rect: t.userRect }))]]);
    const stripped = await stripTags(original, tags);
    expect(stripped.missed).toEqual([]);
    const after = await scan(stripped.bytes, ["after the tag", "next line", "usd", "here", "first line", "pay:", "agree"]);
    expect(after.tags).toEqual([]);
    expect(after.fields).toHaveLength(7); // the surrounding text is all still there
    for (let i = 0; i < 3; i++) {
      const [a, b] = [before.fields[i]!.anchor_match!, after.fields[i]!.anchor_match!];
      expect(Math.abs(a.x - b.x), `field ${i} moved horizontally`).toBeLessThan(0.0005);
      expect(Math.abs(a.y - b.y), `field ${i} moved vertically`).toBeLessThan(0.0005);
    }
    // Under " (Tw 2, Tc 0.4) each glyph advances by its width plus Tc, a space also by Tw.
    const font = await (await PDFDocument.create()).embedFont(StandardFonts.Helvetica);
    const shown = [..."Agree {{ok;type=checkbox;role=buyer}} "].reduce((x, c) => x + font.widthOfTextAtSize(c, 10) + 0.4 + (c === " " ? 2 : 0), 72);
    expect(Math.abs(after.fields[3]!.anchor_match!.x - shown / 612)).toBeLessThan(0.0005);
  });

  it("removes a tag shown in a Type0 (Identity-H) font through its ToUnicode map", async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage([612, 792]);
    const ctx = doc.context;
    // Two-byte codes 0x0120..0x017E stand for ASCII 0x20..0x7E; every glyph is 500/1000 em wide.
    const toUnicode = ctx.register(ctx.flateStream("/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <0120> <017E> <0020> endbfrange endcmap end end"));
    const descendant = ctx.obj({ Type: "Font", Subtype: "CIDFontType2", BaseFont: "TestSans", CIDSystemInfo: { Registry: PDFString.of("Adobe"), Ordering: PDFString.of("Identity"), Supplement: 0 }, DW: 500 });
    const type0 = ctx.register(ctx.obj({ Type: "Font", Subtype: "Type0", BaseFont: "TestSans", Encoding: "Identity-H", DescendantFonts: [ctx.register(descendant)], ToUnicode: toUnicode }));
    page.node.setFontDictionary(PDFName.of("F2"), type0);
    const hex = (text: string) => `<${[...text].map((c) => (0x100 + c.charCodeAt(0)).toString(16).padStart(4, "0")).join("")}>`;
    const content = `BT /F2 12 Tf 72 700 Td ${hex("Sign {{s;type=signature;role=buyer}} here")} Tj ET`;
    page.node.set(PDFName.of("Contents"), ctx.register(ctx.flateStream(content)));
    const bytes = await doc.save();
    const before = await scan(bytes, ["here"]);
    expect(before.tags.map((t) => t.raw)).toEqual(["{{s;type=signature;role=buyer}}"]);
    const stripped = await stripTags(bytes, new Map([[1, [{ key: before.tags[0]!.raw, rect: before.tags[0]!.userRect }]]]));
    expect(stripped.missed).toEqual([]);
    const after = await scan(stripped.bytes, ["here", "sign"]);
    expect(after.tags).toEqual([]);
    // 5 + 31 + 1 glyphs of 6 points precede "here"
    expect(after.fields[0]!.anchor_match!.x).toBeCloseTo((72 + 37 * 6) / 612, 3);
  });

  it("reports a tag it cannot find in the page content (here: drawn inside a form XObject)", async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const page = doc.addPage([612, 792]);
    const inner = await PDFDocument.create();
    const innerFont = await inner.embedFont(StandardFonts.Helvetica);
    inner.addPage([300, 100]).drawText("{{x;type=text;role=buyer}}", { x: 10, y: 50, size: 10, font: innerFont });
    const [embedded] = await doc.embedPdf(await inner.save());
    page.drawPage(embedded!, { x: 72, y: 600 });
    page.drawText("Outside", { x: 72, y: 500, size: 10, font });
    const bytes = await doc.save();
    const before = await scan(bytes, []);
    expect(before.tags).toHaveLength(1);
    const stripped = await stripTags(bytes, new Map([[1, [{ key: "{{x;type=text;role=buyer}}", rect: before.tags[0]!.userRect }]]]));
    expect(stripped.missed).toEqual([{ page: 1, key: "{{x;type=text;role=buyer}}" }]);
  });
});
