import { degrees, PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { stampDocument } from "../../../src/services/signing/stamp-document";
import { placedText } from "../../helpers/signing-flow";

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
