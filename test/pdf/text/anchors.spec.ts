import { describe, expect, it } from "vitest";
import { closePdf, openPdf } from "../../../src/pdf/open-pdf";
import { resolveFields, scanDocument } from "../../../src/services/documents/place-fields";
import { TemplateFieldsInputSchema } from "../../../src/services/templates/schema";
import { advance, anchor, ASCENT, buildPdf, DESCENT, expectedRect, PAGE_SIZES, type PageSpec } from "../../helpers/templates";

type Rect = { page: number; x: number; y: number; w: number; h: number };

async function resolve(pages: PageSpec[], fields: unknown[]) {
  const built = await buildPdf(pages);
  const pdf = await openPdf(built.bytes.slice());
  try {
    const input = TemplateFieldsInputSchema.parse(fields);
    const scan = await scanDocument(pdf, { tags: false, fields: input });
    return { ...resolveFields(input, scan, ["fields"]), built };
  } finally {
    await closePdf(pdf);
  }
}

const TOLERANCE = 0.001; // a thousandth of the page: under a point on Letter

function expectNear(actual: Rect | undefined, expected: Rect) {
  expect(actual, "a match").toBeDefined();
  expect(actual!.page).toBe(expected.page);
  for (const k of ["x", "y", "w", "h"] as const) {
    expect(Math.abs(actual![k] - expected[k]), `${k}: ${actual![k]} vs ${expected[k]}`).toBeLessThan(TOLERANCE);
  }
}

/** Where a user-space point shows on a page displayed with /Rotate (clockwise), top-left origin. */
function display(x: number, y: number, w: number, h: number, rotate: number): [number, number, number, number] {
  // returns [X, Y, displayed width, displayed height]
  switch (rotate) {
    case 90:
      return [y, x, h, w];
    case 180:
      return [w - x, y, w, h];
    case 270:
      return [h - y, w - x, h, w];
    default:
      return [x, h - y, w, h];
  }
}

describe("anchor placement: the matched text's rectangle is where the text was drawn", () => {
  for (const [label, size] of Object.entries(PAGE_SIZES)) {
    it(`on a ${label} page, inside a longer line, with offsets applied to the field`, async () => {
      const text = "I agree. Buyer signature: ______________";
      const { fields, issues, built } = await resolve([{ size, lines: [{ text: "Header", x: 72, y: size[1] - 72 }, { text, x: 90, y: 300, size: 11 }] }], [
        anchor("Buyer signature", { anchor_text: "buyer SIGNATURE", offset_x: 0.01, offset_y: -0.05, w: 0.25, h: 0.04 }),
      ]);
      expect(issues).toEqual([]);
      const expected = expectedRect(built.font, built.drawn[1]!, text, 9, 24);
      expectNear(fields[0]!.anchor_match, expected);
      expectNear(fields[0]!.areas[0], { page: 1, x: expected.x + 0.01, y: expected.y - 0.05, w: 0.25, h: 0.04 });
    });
  }

  for (const rotate of [90, 180, 270] as const) {
    it(`on a page rotated ${rotate}°, in the coordinates of the page as displayed`, async () => {
      const [w, h] = PAGE_SIZES.letter;
      const text = "Co-buyer sign here";
      const { fields, issues, built } = await resolve([{ rotate, lines: [{ text, x: 100, y: 600, size: 12 }] }], [anchor("co", { anchor_text: "sign here" })]);
      expect(issues).toEqual([]);
      const s0 = 100 + advance(built.font, "Co-buyer ", 12);
      const s1 = 100 + advance(built.font, text, 12);
      const corners = [s0, s1].flatMap((x) => [600 + ASCENT * 12, 600 + DESCENT * 12].map((y) => display(x, y, w, h, rotate)));
      const W = corners[0]![2];
      const H = corners[0]![3];
      const xs = corners.map((c) => c[0] / W);
      const ys = corners.map((c) => c[1] / H);
      expectNear(fields[0]!.anchor_match, { page: 1, x: Math.min(...xs), y: Math.min(...ys), w: Math.max(...xs) - Math.min(...xs), h: Math.max(...ys) - Math.min(...ys) });
    });
  }

  it("on a page with a non-zero CropBox, relative to the visible (cropped) page", async () => {
    const text = "Dealer signature";
    const { fields, built } = await resolve([{ cropBox: [50, 100, 400, 500], lines: [{ text, x: 120, y: 350, size: 10 }] }], [anchor("d", { anchor_text: "dealer signature" })]);
    const width = advance(built.font, text, 10);
    expectNear(fields[0]!.anchor_match, {
      page: 1,
      x: (120 - 50) / 400,
      y: (600 - (350 + ASCENT * 10)) / 500,
      w: width / 400,
      h: ((ASCENT - DESCENT) * 10) / 500,
    });
  });

  it("on a page whose MediaBox does not start at the origin", async () => {
    const text = "Witness signature";
    const { fields, built } = await resolve([{ mediaBox: [100, 150, 500, 600], lines: [{ text, x: 180, y: 400, size: 10 }] }], [anchor("w", { anchor_text: "witness" })]);
    expectNear(fields[0]!.anchor_match, {
      page: 1,
      x: (180 - 100) / 500,
      y: (750 - (400 + ASCENT * 10)) / 600,
      w: advance(built.font, "Witness", 10) / 500,
      h: ((ASCENT - DESCENT) * 10) / 600,
    });
  });

  it("matches a phrase split across text items on one line and across a line break", async () => {
    const size = 12;
    const { fields, issues, built } = await resolve(
      [
        {
          lines: [
            { text: "Sign", x: 72, y: 700, size },
            { text: "ature of buyer", x: 72 + 24.012, y: 700, size }, // drawn right after "Sign"
            { text: "Authorized", x: 300, y: 500, size },
            { text: "representative", x: 72, y: 480, size },
          ],
        },
      ],
      [anchor("a", { anchor_text: "signature of buyer" }), anchor("b", { anchor_text: "authorized   representative" })],
    );
    expect(issues).toEqual([]);
    const f = built.font;
    expect(advance(f, "Sign", size)).toBeCloseTo(24.012, 3);
    const first = expectedRect(f, built.drawn[0]!, "Sign", 0, 4);
    const second = expectedRect(f, built.drawn[1]!, "ature of buyer", 0, 14);
    expectNear(fields[0]!.anchor_match, { page: 1, x: first.x, y: first.y, w: second.x + second.w - first.x, h: first.h });
    const a = expectedRect(f, built.drawn[2]!, "Authorized", 0, 10);
    const b = expectedRect(f, built.drawn[3]!, "representative", 0, 14);
    expectNear(fields[1]!.anchor_match, { page: 1, x: b.x, y: a.y, w: a.x + a.w - b.x, h: b.y + b.h - a.y });
  });

  it("honours occurrence in document order, the page filter, and reports an occurrence beyond the matches", async () => {
    const line = (y: number) => ({ text: "Initials ____", x: 72, y });
    const { fields, issues, built } = await resolve([{ lines: [line(700), line(400)] }, { lines: [line(650)] }], [
      anchor("i1", { anchor_text: "initials" }),
      anchor("i2", { anchor_text: "initials", occurrence: 2 }),
      anchor("i3", { anchor_text: "initials", occurrence: 3 }),
      anchor("p2", { anchor_text: "initials", page: 2 }),
      anchor("i4", { anchor_text: "initials", occurrence: 4 }),
    ]);
    const expectedAt = (k: number) => expectedRect(built.font, built.drawn[k]!, "Initials ____", 0, 8);
    expectNear(fields[0]!.anchor_match, expectedAt(0));
    expectNear(fields[1]!.anchor_match, expectedAt(1));
    expectNear(fields[2]!.anchor_match, expectedAt(2));
    expectNear(fields[3]!.anchor_match, expectedAt(2));
    expect(fields).toHaveLength(4);
    expect(issues).toEqual([
      expect.objectContaining({ code: "anchor_not_found", path: ["fields", 4, "placement", "anchor_text"], message: 'Anchor not found: occurrence 4 of "initials" requested, but it occurs 3 time(s)' }),
    ]);
  });

  it("finds nothing in an image-only PDF and says it has no text layer", async () => {
    const { issues } = await resolve([{ image: true }], [anchor("s", { anchor_text: "signature" })]);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.code).toBe("anchor_not_found");
    expect(issues[0]!.message).toMatch(/no text layer/);
  });

  it("refuses a field that its anchor would push off the page", async () => {
    const { issues } = await resolve([{ lines: [{ text: "Sign", x: 500, y: 100 }] }], [anchor("s", { anchor_text: "sign", w: 0.3 })]);
    expect(issues).toEqual([expect.objectContaining({ code: "area_off_page", path: ["fields", 0, "placement"] })]);
    expect(issues[0]!.message).toMatch(/x \+ w = 1\.1/);
  });
});
