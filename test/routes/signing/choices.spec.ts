import { describe, expect, it } from "vitest";
import { newTenant } from "../../helpers/api";
import { eventsOf } from "../../helpers/signing";
import { CHOICE_AREAS, CHOICE_OPTIONS, filledCircles, placedText, sentChoiceEnvelope, signing, storedDocument } from "../../helpers/signing-flow";

const TOL = 0.01;

describe("select and radio fields on the signer API", () => {
  it("shows the options, refuses a value outside them, and stamps the choice: select as text, radio as a circle in the chosen option's area", async () => {
    const t = await newTenant();
    const e = await sentChoiceEnvelope(t.key);

    const state = await signing("GET", e.buyer);
    expect(state.status).toBe(200);
    const fields = Object.fromEntries(state.body.data.fields.map((f: { name: string }) => [f.name, f]));
    expect(fields.buyer_signature.options).toBeNull();
    expect(fields.plan).toMatchObject({ type: "select", required: true, options: CHOICE_OPTIONS.plan, value: null, areas: [CHOICE_AREAS.plan] });
    expect(fields.term).toMatchObject({ type: "radio", options: CHOICE_OPTIONS.term, areas: CHOICE_AREAS.term });
    expect(fields.delivery).toMatchObject({ type: "radio", options: CHOICE_OPTIONS.delivery, default_value: "Pickup", value: "Pickup", areas: [CHOICE_AREAS.delivery] });

    const wrong = await signing("POST", e.buyer, "submit", { values: { buyer_signature: "Ann Buyer", plan: "Weekly", term: "24 months", delivery: "Drone" } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.details).toEqual([
      expect.objectContaining({ path: ["values", "plan"], code: "invalid_value", message: "plan must be one of its options: Monthly, Quarterly, Yearly" }),
      expect.objectContaining({ path: ["values", "delivery"], code: "invalid_value", message: "delivery must be one of its options: Pickup, Shipping" }),
    ]);
    const missing = await signing("POST", e.buyer, "submit", { values: { buyer_signature: "Ann Buyer", plan: "Yearly" } });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toBe("Required fields are not filled: term");

    const done = await signing("POST", e.buyer, "submit", { values: { buyer_signature: "Ann Buyer", plan: "Quarterly", term: "24 months", delivery: "Shipping" } });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ completed: true, envelope_status: "completed" });

    const completed = (await eventsOf(e.envelopeId)).find((ev) => ev.type === "envelope.completed")!;
    expect(completed.data.values).toEqual({ buyer_signature: { kind: "typed", text: "Ann Buyer" }, plan: "Quarterly", term: "24 months", delivery: "Shipping" });

    const signed = await storedDocument(e.envelopeId, "signed");
    const { items, pages } = await placedText(signed!.bytes);
    for (const [text, area] of [
      ["Quarterly", CHOICE_AREAS.plan],
      ["Shipping", CHOICE_AREAS.delivery],
    ] as const) {
      const item = items.find((i) => i.str === text);
      expect(item, text).toBeDefined();
      expect(Math.abs(item!.x - area.x)).toBeLessThan(TOL);
      expect(Math.abs(item!.baselineY - (area.y + area.h))).toBeLessThan(TOL);
    }
    // The per-option radio writes no text: only the labels printed on the original are on page 1.
    expect(pages[0]!.match(/24 months/g)).toHaveLength(1);

    const circles = await filledCircles(signed!.bytes);
    expect(circles).toHaveLength(1);
    const chosen = CHOICE_AREAS.term[1];
    expect(circles[0]!.page).toBe(1);
    expect(Math.abs(circles[0]!.x - (chosen.x + chosen.w / 2))).toBeLessThan(0.002);
    expect(Math.abs(circles[0]!.y - (chosen.y + chosen.h / 2))).toBeLessThan(0.002);
  });

  it("a default option of a radio in one area stands when the signer leaves it", async () => {
    const t = await newTenant();
    const e = await sentChoiceEnvelope(t.key);
    expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: "Ann Buyer", plan: "Monthly", term: "12 months" } })).status).toBe(200);
    const completed = (await eventsOf(e.envelopeId)).find((ev) => ev.type === "envelope.completed")!;
    expect(completed.data.values).toMatchObject({ plan: "Monthly", term: "12 months", delivery: "Pickup" });
    const circles = await filledCircles((await storedDocument(e.envelopeId, "signed"))!.bytes);
    expect(circles.map((c) => Math.round(c.y * 1000) / 1000)).toEqual([CHOICE_AREAS.term[0].y + CHOICE_AREAS.term[0].h / 2]);
  });
});
