import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createEnvelope, envelopeBody, newTenant } from "../../../helpers/api";
import { absolute, anchor, buildPdf, choice, send, uploadTemplate } from "../../../helpers/templates";
import { shardDbOf } from "../../../helpers/shards";

const AREA = { page: 1, x: 0.1, y: 0.2, w: 0.3, h: 0.04 };
const DOTS = [0.3, 0.35, 0.4].map((y) => ({ page: 1, x: 0.1, y, w: 0.03, h: 0.03 }));
const TERMS = ["12 months", "24 months", "36 months"];

type Issue = { code: string; path: (string | number)[]; message: string };
const issuesOf = (body: { details: Issue[] }) => body.details.map((d) => [d.code, d.path.join("."), d.message]);

const pdf = async () => (await buildPdf([{ lines: [{ text: "Payment plan:", x: 72, y: 700 }] }])).bytes;

describe("options of select and radio fields", () => {
  it("are stored with the field and returned (null on other types), trimmed, for absolute and anchor placements", async () => {
    const t = await newTenant();
    const res = await uploadTemplate(t.key, {
      file: await pdf(),
      fields: [
        choice("plan", "select", [" Monthly ", "Yearly"], [AREA], { default_value: "Yearly", required: true }),
        choice("term", "radio", TERMS, DOTS),
        choice("delivery", "radio", ["Pickup", "Shipping"], [AREA]),
        anchor("plan_again", { anchor_text: "payment plan", offset_x: 0.2 }, { type: "select", options: ["A", "B"] }),
        absolute("notes", [AREA], { type: "text" }),
      ],
    });
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.body.data.fields.map((f: { name: string }) => [f.name, f]));
    expect(byName.plan).toMatchObject({ type: "select", options: ["Monthly", "Yearly"], default_value: "Yearly", areas: [AREA] });
    expect(byName.term).toMatchObject({ type: "radio", options: TERMS, areas: DOTS });
    expect(byName.delivery.options).toEqual(["Pickup", "Shipping"]);
    expect(byName.plan_again).toMatchObject({ placement_mode: "anchor", options: ["A", "B"] });
    expect(byName.notes.options).toBeNull();
    const rows = await env.DB.prepare("SELECT name, options FROM template_fields WHERE template_id = ? ORDER BY seq").bind(res.body.data.template_id).all();
    expect(rows.results.map((r) => [r.name, r.options === null ? null : JSON.parse(r.options as string)])).toEqual([
      ["plan", ["Monthly", "Yearly"]],
      ["term", TERMS],
      ["delivery", ["Pickup", "Shipping"]],
      ["plan_again", ["A", "B"]],
      ["notes", null],
    ]);
  });

  it("are required on select and radio, refused elsewhere, each 1 to 200 characters, 1 to 50 of them, listed once, with the default among them", async () => {
    const t = await newTenant();
    const res = await uploadTemplate(t.key, {
      file: await pdf(),
      fields: [
        absolute("plan", [AREA], { type: "select" }),
        absolute("notes", [AREA], { type: "text", options: ["a"] }),
        choice("blank", "select", ["a", "  "], [AREA]),
        choice("long", "select", ["x".repeat(201)], [AREA]),
        choice("many", "select", Array.from({ length: 51 }, (_, i) => `o${i}`), [AREA]),
        choice("none", "radio", [], [AREA]),
      ],
    });
    expect(res.status).toBe(422);
    const paths = res.body.details.map((d: Issue) => d.path.join("."));
    expect(paths).toEqual(["fields_json.2.options.1", "fields_json.3.options.0", "fields_json.4.options", "fields_json.5.options"]);

    // Past the schema, the rules across a field's own keys.
    const rules = await uploadTemplate(t.key, {
      file: await pdf(),
      fields: [
        absolute("plan", [AREA], { type: "select" }),
        absolute("notes", [AREA], { type: "text", options: ["a"] }),
        choice("twice", "select", ["a", "b", " a"], [AREA]),
        choice("unmatched", "radio", ["a", "b"], [AREA], { default_value: "c" }),
      ],
    });
    expect(rules.status).toBe(422);
    expect(issuesOf(rules.body)).toEqual([
      ["invalid_type", "fields_json.0.options", "options is required for select and radio fields"],
      ["invalid_value", "fields_json.1.options", "options are only allowed on select and radio fields"],
      ["duplicate_option", "fields_json.2.options.2", 'The option "a" is listed twice'],
      ["invalid_value", "fields_json.3.default_value", "The default of a radio field must be one of its options (a, b)"],
    ]);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM templates WHERE org_id = ?").bind(t.orgId).first()).toEqual({ n: 0 });
  });

  it("place a radio in one area or one area per option: any other count is 422 explaining it", async () => {
    const t = await newTenant();
    const res = await uploadTemplate(t.key, { file: await pdf(), fields: [choice("term", "radio", TERMS, DOTS.slice(0, 2))] });
    expect(res.status).toBe(422);
    expect(issuesOf(res.body)).toEqual([
      ["invalid_placement", "fields_json.0.placement.areas", "A radio field has one area (its choices drawn inside it) or one area per option, in order: 3 options need 1 or 3 areas, not 2"],
    ]);
    // A select shows its value wherever it is placed: any number of areas.
    expect((await uploadTemplate(t.key, { file: await pdf(), fields: [choice("plan", "select", TERMS, DOTS.slice(0, 2))] })).status).toBe(200);
  });

  it("follow the same rules on POST /partner/templates/:id/fields", async () => {
    const t = await newTenant();
    const template = await uploadTemplate(t.key, { file: await pdf() });
    const id = template.body.data.template_id;
    const bad = await call("POST", `/partner/templates/${id}/fields`, { key: t.key, body: { fields: [absolute("plan", [AREA], { type: "radio" })] } });
    expect(bad.status).toBe(422);
    expect(issuesOf(bad.body)).toEqual([["invalid_type", "fields.0.options", "options is required for select and radio fields"]]);
    const ok = await call("POST", `/partner/templates/${id}/fields`, { key: t.key, body: { fields: [choice("term", "radio", TERMS, DOTS)] } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.fields[0]).toMatchObject({ name: "term", options: TERMS });
  });

  it("travel to envelopes made from the template; prefilled_data of a select or radio must be one of them", async () => {
    const t = await newTenant();
    const template = await uploadTemplate(t.key, { file: await pdf(), fields: [choice("plan", "select", ["Monthly", "Yearly"], [AREA], { default_value: "Monthly" }), choice("term", "radio", TERMS, DOTS)] });
    const templateId = template.body.data.template_id;
    const refused = await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody({ template_id: templateId, prefilled_data: { plan: "Weekly", term: 24 } }) });
    expect(refused.status).toBe(422);
    expect(issuesOf(refused.body)).toEqual([
      ["invalid_value", "prefilled_data.plan", "a select field takes one of its options: Monthly, Yearly"],
      ["invalid_value", "prefilled_data.term", "a radio field takes one of its options: 12 months, 24 months, 36 months"],
    ]);
    const e = await createEnvelope(t.key, { template_id: templateId, prefilled_data: { term: "24 months" } });
    const rows = await shardDbOf(e.envelope_id).prepare("SELECT name, options, value FROM envelope_fields WHERE envelope_id = ? ORDER BY seq").bind(e.envelope_id).all();
    expect(rows.results).toEqual([
      { name: "plan", options: JSON.stringify(["Monthly", "Yearly"]), value: "Monthly" },
      { name: "term", options: JSON.stringify(TERMS), value: "24 months" },
    ]);
  });

  it("come from embedded tags on PUT /partner/envelopes/:id/document, in the response and on the envelope's fields", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const { bytes } = await buildPdf([
      {
        lines: [
          { text: "Plan {{plan;type=select;role=buyer;options=Monthly,Yearly}}", x: 72, y: 700, size: 9 },
          { text: "Card {{pay;type=radio;role=buyer;options=Card,Transfer}}", x: 72, y: 660, size: 9 },
          { text: "Transfer {{pay;type=radio;role=buyer}}", x: 72, y: 640, size: 9 },
        ],
      },
    ]);
    const form = new FormData();
    form.append("file", new File([bytes], "contract.pdf", { type: "application/pdf" }));
    const res = await send("PUT", `/partner/envelopes/${e.envelope_id}/document`, t.key, form);
    expect(res.status).toBe(200);
    expect(res.body.data.fields.map((f: { name: string; options: string[]; areas: unknown[] }) => [f.name, f.options, f.areas.length])).toEqual([
      ["plan", ["Monthly", "Yearly"], 1],
      ["pay", ["Card", "Transfer"], 2],
    ]);
    const rows = await shardDbOf(e.envelope_id).prepare("SELECT name, options FROM envelope_fields WHERE envelope_id = ? ORDER BY seq").bind(e.envelope_id).all();
    expect(rows.results).toEqual([
      { name: "plan", options: '["Monthly","Yearly"]' },
      { name: "pay", options: '["Card","Transfer"]' },
    ]);
  });
});
