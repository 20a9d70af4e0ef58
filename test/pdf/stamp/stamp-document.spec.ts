import { degrees, PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { DOT_RADIUS, radioStamp, stampDocument } from "../../../src/pdf/stamp/stamp-document";
import { filledCircles, placedText } from "../../helpers/signing-flow";

const AREA = { page: 1, x: 0.2, y: 0.3, w: 0.5, h: 0.05 };

async function pageWith(rotation: number, crop?: [number, number, number, number]) {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  page.setRotation(degrees(rotation));
  if (crop) page.setCropBox(...crop);
  return doc.save();
}

describe("stamping at field areas: fractions of the displayed page, whatever the rotation and CropBox", () => {
  for (const rotation of [0, 90, 180, 270]) {
    for (const crop of [undefined, [36, 72, 500, 600] as [number, number, number, number]]) {
      it(`puts the text at the area's displayed bottom-left on a page rotated ${rotation}${crop ? " with a CropBox" : ""}`, async () => {
        const stamped = await stampDocument(await pageWith(rotation, crop), [{ areas: [AREA], value: { kind: "text", text: "Ann Buyer" } }]);
        const { items } = await placedText(stamped);
        const item = items.find((i) => i.str === "Ann Buyer")!;
        expect(item).toBeDefined();
        expect(Math.abs(item.x - AREA.x)).toBeLessThan(0.01);
        expect(Math.abs(item.baselineY - (AREA.y + AREA.h))).toBeLessThan(0.01);
      });
    }
  }
});

describe("radio stamps: a filled circle in the chosen option's area, or the chosen text in a single area", () => {
  const OPTIONS = ["12 months", "24 months", "36 months"];
  const DOTS = [0.3, 0.4, 0.5].map((y, i) => ({ page: 1, x: 0.2 + i * 0.1, y, w: 0.04, h: 0.03 }));

  it("marks the area of the chosen option, in the order of the options, and no other", () => {
    expect(radioStamp(DOTS, OPTIONS, "24 months")).toEqual({ areas: [DOTS[1]], value: { kind: "dot" } });
    expect(radioStamp([DOTS[0]!], OPTIONS, "24 months")).toEqual({ areas: [DOTS[0]], value: { kind: "text", text: "24 months" } });
    expect(radioStamp([DOTS[0]!], null, "Card")).toEqual({ areas: [DOTS[0]], value: { kind: "text", text: "Card" } });
  });

  for (const rotation of [0, 90, 180, 270]) {
    for (const crop of [undefined, [36, 72, 500, 600] as [number, number, number, number]]) {
      it(`draws one circle centred in the chosen area on a page rotated ${rotation}${crop ? " with a CropBox" : ""}`, async () => {
        const stamped = await stampDocument(await pageWith(rotation, crop), [radioStamp(DOTS, OPTIONS, "36 months")]);
        const circles = await filledCircles(stamped);
        expect(circles).toHaveLength(1);
        const [circle] = circles;
        const chosen = DOTS[2]!;
        expect(circle!.page).toBe(1);
        expect(Math.abs(circle!.x - (chosen.x + chosen.w / 2))).toBeLessThan(0.002);
        expect(Math.abs(circle!.y - (chosen.y + chosen.h / 2))).toBeLessThan(0.002);
        // Radius: 35 % of the area's smaller side, in points of the displayed page.
        const [w, h] = crop ? [crop[2], crop[3]] : [612, 792];
        const [dw, dh] = rotation % 180 === 0 ? [w, h] : [h, w];
        expect(circle!.r).toBeCloseTo(DOT_RADIUS * Math.min(chosen.w * dw, chosen.h * dh), 3);
      });
    }
  }

  it("writes the chosen text when the radio has one area", async () => {
    const stamped = await stampDocument(await pageWith(0), [radioStamp([AREA], OPTIONS, "24 months")]);
    expect(await filledCircles(stamped)).toEqual([]);
    const item = (await placedText(stamped)).items.find((i) => i.str === "24 months");
    expect(item).toBeDefined();
    expect(Math.abs(item!.x - AREA.x)).toBeLessThan(0.01);
  });
});

