import { env } from "cloudflare:test";
import { getDocumentProxy } from "unpdf";
import { describe, expect, it } from "vitest";
import { newTenant } from "../../../helpers/api";
import { advance, buildPdf, expectedRect, PAGE_SIZES, uploadTemplate } from "../../../helpers/templates";

const SIG = "{{buyer_sig;type=signature;role=buyer;required=true;width=144;height=36}}";
const DATE = "{{signed_on; type=date; role=buyer; default=2026-11-23; readonly=true}}";
const LINE1 = `Buyer: ${SIG} Date: ${DATE}`;
const INITIALS = "{{initials;type=initials;role=buyer}}";
const OTHERS = "{{agree;type=checkbox;role=buyer;default=true}} {{amount;type=number;role=buyer;default=1250.50}} {{plan;type=select;role=buyer}} {{pay;type=radio;role=buyer}} {{notes;type=text;role=buyer}}";

async function tagged() {
  return buildPdf([
    { lines: [{ text: LINE1, x: 40, y: 600, size: 7 }, { text: `Initial here: ${INITIALS}`, x: 72, y: 100, size: 9 }] },
    { size: PAGE_SIZES.a4, lines: [{ text: `Initial here: ${INITIALS}`, x: 72, y: 100, size: 9 }, { text: OTHERS, x: 30, y: 400, size: 6 }] },
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
    expect(byName.plan.type).toBe("select");
    expect(byName.pay.type).toBe("radio");
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
      ["invalid_value", "file.tags.1.type", "tag {{b;type=stamp;role=buyer;required=yes;width=-5}} on page 1: type must be one of signature, initials, text, date, checkbox, number, select, radio"],
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
});
