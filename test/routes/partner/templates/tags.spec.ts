import { env } from "cloudflare:test";
import { getDocumentProxy } from "unpdf";
import { describe, expect, it } from "vitest";
import { newTenant } from "../../../helpers/api";
import { advance, buildPdf, expectedRect, PAGE_SIZES, uploadTemplate } from "../../../helpers/templates";

const SIG = "{{buyer_sig;type=signature;role=buyer;required=true;width=144;height=36}}";
const DATE = "{{signed_on; type=date; role=buyer; default=2026-11-23; readonly=true}}";
const LINE1 = `Buyer: ${SIG} Date: ${DATE}`;
const INITIALS = "{{initials;type=initials;role=buyer}}";
const OTHERS = "{{agree;type=checkbox;role=buyer;default=true}} {{amount;type=number;role=buyer;default=1250.50}} {{notes;type=text;role=buyer}}";
const CHOICES = "{{plan;type=select;role=buyer;options=Monthly, Yearly;default=Yearly}} {{pay;type=radio;role=buyer;options=Card,Transfer}}";

async function tagged() {
  return buildPdf([
    { lines: [{ text: LINE1, x: 40, y: 600, size: 7 }, { text: `Initial here: ${INITIALS}`, x: 72, y: 100, size: 9 }] },
    { size: PAGE_SIZES.a4, lines: [{ text: `Initial here: ${INITIALS}`, x: 72, y: 100, size: 9 }, { text: OTHERS, x: 30, y: 400, size: 6 }, { text: CHOICES, x: 30, y: 380, size: 6 }] },
  ]);
}

/** The text items of each page of a stored PDF, as pdf.js reads them. */
async function storedItems(documentKey: string) {
  const object = await env.DOCS.get(documentKey);
  const pdf = await getDocumentProxy(new Uint8Array(await object!.arrayBuffer()));
  const pages = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const content = await (await pdf.getPage(n)).getTextContent();
    pages.push(content.items.filter((i) => "str" in i) as { str: string; transform: number[] }[]);
  }
  return pages;
}

describe("embedded tags", () => {
  it("turn into fields with every attribute of the spec, several tags of one name giving several areas", async () => {
    const t = await newTenant();
    const built = await tagged();
    const res = await uploadTemplate(t.key, { file: built.bytes });
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.body.data.fields.map((f: { name: string }) => [f.name, f]));
    expect(Object.keys(byName).sort()).toEqual(["agree", "amount", "buyer_sig", "initials", "notes", "pay", "plan", "signed_on"]);
    expect(res.body.data.fields_added).toBe(8);

    const sigAt = expectedRect(built.font, built.drawn[0]!, LINE1, 7, 7 + SIG.length);
    expect(byName.buyer_sig).toMatchObject({ type: "signature", role: "buyer", required: true, readonly: false, placement_mode: "tag" });
    const [area] = byName.buyer_sig.areas;
    expect(area.page).toBe(1);
    expect(area.x).toBeCloseTo(sigAt.x, 3);
    expect(area.y).toBeCloseTo(sigAt.y, 3);
    expect(area.w).toBeCloseTo(144 / 612, 5); // 72-DPI pixels are points: 2 inches of a Letter page's width
    expect(area.h).toBeCloseTo(36 / 792, 5);

    expect(byName.signed_on).toMatchObject({ type: "date", default_value: "2026-11-23", readonly: true, required: false });
    expect(byName.initials.type).toBe("initials");
    expect(byName.initials.areas.map((a: { page: number }) => a.page)).toEqual([1, 2]);
    const init2 = expectedRect(built.font, built.drawn[2]!, `Initial here: ${INITIALS}`, 14, 14 + INITIALS.length);
    expect(byName.initials.areas[1].x).toBeCloseTo(init2.x, 3);
    expect(byName.initials.areas[1].w).toBeCloseTo(init2.w, 3); // no width: the tag's own rectangle
    expect(byName.initials.areas[1].y).toBeCloseTo(init2.y, 3);
    expect(byName.agree).toMatchObject({ type: "checkbox", default_value: "true" });
    expect(byName.amount).toMatchObject({ type: "number", default_value: "1250.50" });
    expect(byName.plan).toMatchObject({ type: "select", options: ["Monthly", "Yearly"], default_value: "Yearly" });
    expect(byName.pay).toMatchObject({ type: "radio", options: ["Card", "Transfer"], default_value: null });
    expect(byName.pay.areas).toHaveLength(1); // one tag: the choices are drawn inside its area
    expect(byName.notes.options).toBeNull();
  });

  it("are stripped from the stored PDF: its text layer no longer holds them and the text around them has not moved", async () => {
    const t = await newTenant();
    const built = await tagged();
    const res = await uploadTemplate(t.key, { file: built.bytes });
    const row = await env.DB.prepare("SELECT document_key, page_count FROM templates WHERE id = ?").bind(res.body.data.template_id).first<{ document_key: string; page_count: number }>();
    expect(row!.page_count).toBe(2);
    const pages = await storedItems(row!.document_key);
    const text = pages.map((items) => items.map((i) => i.str).join(" ")).join("\n");
    expect(text).not.toMatch(/\{\{|\}\}|buyer_sig|type=/);
    expect(text).toMatch(/Buyer:/);
    expect(text).toMatch(/Date:/);
    const date = pages[0]!.find((i) => i.str.includes("Date:"));
    const dateOffset = date!.str.indexOf("Date:");
    const expectedX = 40 + advance(built.font, `Buyer: ${SIG} `, 7);
    expect(date!.transform[4]! + advance(built.font, date!.str.slice(0, dateOffset), 7)).toBeCloseTo(expectedX, 1);
    expect(date!.transform[5]).toBe(600);
    const objects = await env.DOCS.list({ prefix: `documents/${t.orgId}/` });
    expect(objects.objects.map((o) => o.key)).toEqual([row!.document_key]); // the tagged upload is not kept
  });

  it("report unknown attributes, bad values and missing type or role instead of ignoring them", async () => {
    const t = await newTenant();
    const { bytes } = await buildPdf([
      {
        lines: [
          { text: "{{a;type=text;role=buyer;colour=red}}", x: 72, y: 700 },
          { text: "{{b;type=stamp;role=buyer;required=yes;width=-5}}", x: 72, y: 650 },
          { text: "{{c;required=true}}", x: 72, y: 600 },
          { text: "{{d;type=text;role=buyer;width}}", x: 72, y: 550 },
        ],
      },
    ]);
    const res = await uploadTemplate(t.key, { file: bytes });
    expect(res.status).toBe(422);
    const issues = res.body.details.map((d: { code: string; path: (string | number)[]; message: string }) => [d.code, d.path.join("."), d.message]);
    expect(issues).toEqual([
      ["unknown_attribute", "file.tags.0.colour", 'tag {{a;type=text;role=buyer;colour=red}} on page 1: unknown attribute "colour"'],
      ["invalid_value", "file.tags.1.type", "tag {{b;type=stamp;role=buyer;required=yes;width=-5}} on page 1: type must be one of signature, initials, text, date, checkbox, number, select, radio, attachment"],
      ["invalid_value", "file.tags.1.required", "tag {{b;type=stamp;role=buyer;required=yes;width=-5}} on page 1: required must be true or false"],
      ["invalid_value", "file.tags.1.width", "tag {{b;type=stamp;role=buyer;required=yes;width=-5}} on page 1: width must be a positive number of pixels"],
      ["missing_attribute", "file.tags.2.type", "tag {{c;required=true}} on page 1: the tag has no type"],
      ["missing_attribute", "file.tags.2.role", "tag {{c;required=true}} on page 1: the tag has no role"],
      ["invalid_value", "file.tags.3.width", "tag {{d;type=text;role=buyer;width}} on page 1: the attribute width has no value"],
    ]);
  });

  it("with one name must agree on their attributes, and may not push a field off the page", async () => {
    const t = await newTenant();
    const { bytes } = await buildPdf([{ lines: [{ text: "{{x;type=text;role=buyer}}", x: 72, y: 700 }, { text: "{{x;type=date;role=buyer}}", x: 72, y: 650 }, { text: "{{wide;type=text;role=buyer;width=600}}", x: 300, y: 600 }] }]);
    const res = await uploadTemplate(t.key, { file: bytes });
    expect(res.status).toBe(422);
    expect(res.body.details.map((d: { code: string }) => d.code)).toEqual(["conflicting_tags", "area_off_page"]);
  });

  it("combine with fields_json in one upload, and a fields_json name may not repeat a tag's", async () => {
    const t = await newTenant();
    const { bytes } = await buildPdf([{ lines: [{ text: "Sign: {{s;type=signature;role=buyer}}", x: 72, y: 700 }] }]);
    const ok = await uploadTemplate(t.key, { file: bytes, fields: [{ name: "d", type: "date", role: "buyer", placement: { mode: "anchor", anchor_text: "sign:", w: 0.1, h: 0.02 } }] });
    expect(ok.status).toBe(200);
    expect(ok.body.data.fields.map((f: { name: string; placement_mode: string }) => [f.name, f.placement_mode])).toEqual([["s", "tag"], ["d", "anchor"]]);
    const clash = await uploadTemplate(t.key, { file: bytes, fields: [{ name: "s", type: "date", role: "buyer", placement: { mode: "absolute", areas: [{ page: 1, x: 0, y: 0, w: 0.1, h: 0.1 }] } }] });
    expect(clash.status).toBe(422);
    expect(clash.body.details[0]).toMatchObject({ code: "duplicate_name", path: ["fields_json", 0, "name"] });
  });

  it("carry options=A,B,C on select and radio; radio tags of one name place one area per option, in order", async () => {
    const t = await newTenant();
    const { bytes } = await buildPdf([
      {
        lines: [
          { text: "12 months {{term;type=radio;role=buyer;options=12 months, 24 months ,36 months;required=true}}", x: 72, y: 700, size: 8 },
          { text: "24 months {{term;type=radio;role=buyer}}", x: 72, y: 680, size: 8 },
          { text: "36 months {{term;type=radio;role=buyer}}", x: 72, y: 660, size: 8 },
        ],
      },
    ]);
    const res = await uploadTemplate(t.key, { file: bytes });
    expect(res.status).toBe(200);
    const [term] = res.body.data.fields;
    expect(term).toMatchObject({ name: "term", type: "radio", required: true, options: ["12 months", "24 months", "36 months"], placement_mode: "tag" });
    expect(term.areas).toHaveLength(3);
    const ys = term.areas.map((a: { y: number }) => a.y);
    expect(ys[0]).toBeLessThan(ys[1]);
    expect(ys[1]).toBeLessThan(ys[2]); // document order: the first tag is the first option
    expect(term.areas.every((a: { x: number }) => Math.abs(a.x - term.areas[0].x) < 0.001)).toBe(true);
  });

  it("refuse a radio whose tag count is neither 1 nor its number of options, naming the field", async () => {
    const t = await newTenant();
    const { bytes } = await buildPdf([{ lines: [{ text: "{{term;type=radio;role=buyer;options=12,24,36}}", x: 72, y: 700 }, { text: "{{term;type=radio;role=buyer}}", x: 72, y: 650 }] }]);
    const res = await uploadTemplate(t.key, { file: bytes });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([
      expect.objectContaining({
        code: "invalid_placement",
        path: ["file", "tags", "term"],
        message: 'A radio field is placed by one tag (its choices drawn there) or by one tag per option, in order: "term" has 3 options but 2 tags',
      }),
    ]);
  });

  it("report missing, misplaced, empty, repeated, conflicting and unmatched options", async () => {
    const t = await newTenant();
    const { bytes } = await buildPdf([
      {
        lines: [
          { text: "{{plan;type=select;role=buyer}}", x: 72, y: 700 },
          { text: "{{notes;type=text;role=buyer;options=a,b}}", x: 72, y: 670 },
          { text: "{{c;type=select;role=buyer;options=a,,b}}", x: 72, y: 640 },
          { text: "{{d;type=select;role=buyer;options=a,b,a}}", x: 72, y: 610 },
          { text: "{{e;type=select;role=buyer;options=a,b;default=c}}", x: 72, y: 580 },
          { text: "{{f;type=select;role=buyer;options=a,b}}", x: 72, y: 550 },
          { text: "{{f;type=select;role=buyer;options=a,c}}", x: 72, y: 520 },
        ],
      },
    ]);
    const res = await uploadTemplate(t.key, { file: bytes });
    expect(res.status).toBe(422);
    const issues = res.body.details.map((d: { code: string; path: (string | number)[]; message: string }) => [d.code, d.path.join("."), d.message]);
    expect(issues).toEqual([
      ["invalid_value", "file.tags.2.options", "tag {{c;type=select;role=buyer;options=a,,b}} on page 1: an option is empty"],
      ["conflicting_tags", "file.tags.6.options", 'tag {{f;type=select;role=buyer;options=a,c}} on page 1: tags named "f" disagree on options'],
      ["invalid_type", "file.tags.plan.options", "options is required for select and radio fields"],
      ["invalid_value", "file.tags.notes.options", "options are only allowed on select and radio fields"],
      ["duplicate_option", "file.tags.d.options.2", 'The option "a" is listed twice'],
      ["invalid_value", "file.tags.e.default_value", "The default of a select field must be one of its options (a, b)"],
    ]);
  });
});
