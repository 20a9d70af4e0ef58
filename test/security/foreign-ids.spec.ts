import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { accessOf, operations, pathParams, servedDocument, type Document, type Op, type Schema } from "./matrix/document";
import { idFieldsOf, withValue, type IdField } from "./matrix/id-fields";
import { FOREIGN_ID_ANSWERS, FOREIGN_ID_CONTEXT, FOREIGN_ID_WITH_OWN, ID_FIELD_KINDS, NOT_ORGANIZATION_IDS } from "./matrix/reviewed";
import { sample } from "./matrix/samples";
import { changedTables, snapshot } from "./matrix/snapshot";
import { theWorld, type Org } from "./matrix/world";

/**
 * Ids named in request bodies and queries (`template_id`, `master_template_id`, `customer_ids`,
 * `customer_id`, …), found in the served OpenAPI document's request schemas: for every partner and
 * console operation, organization A's credential with organization B's id is refused as the spec says
 * (404 unless reviewed/FOREIGN_ID_ANSWERS says otherwise), exactly as an id that exists nowhere (so
 * the answer does not tell whether B's id exists), and nothing in the database changes.
 */
const doc = await servedDocument();

/** The object's required fields only, each from its schema (an operation's example may carry sources that exclude each other). */
function requiredOnly(d: Document, schema: Schema | undefined): Record<string, unknown> {
  let s = schema;
  while (s && typeof s.$ref === "string") s = d.components?.schemas?.[s.$ref.split("/").pop()!];
  const out: Record<string, unknown> = {};
  for (const name of s?.required ?? []) out[name] = sample(d, s?.properties?.[name]);
  return out;
}

/** The same id with its characters after the prefix zeroed: an id of the same shape that exists nowhere. */
const nowhere = (id: string) => id.replace(/(?<=_)[A-Za-z0-9]+$/, (rest) => "0".repeat(rest.length));

type Case = { o: Op; field: IdField; name: string };

async function send(c: Case, caller: Org, id: string) {
  const { o, field } = c;
  let path = o.path;
  for (const p of pathParams(o.op)) path = path.replace(`{${p.name}}`, encodeURIComponent(caller.ids[p.name] ?? "zz"));
  const headers: Record<string, string> = accessOf(o.op).kind === "partner" ? { "X-API-Key": caller.key } : { Authorization: `Bearer ${caller.admin}` };
  const value = field.list ? (FOREIGN_ID_WITH_OWN.has(c.name) ? [caller.ids[ID_FIELD_KINDS[field.name]!], id] : [id]) : id;
  let url = `http://localhost${path}`;
  let body: string | undefined;
  if (field.in === "query") url += `?${new URLSearchParams({ [field.name]: String(value) })}`;
  else {
    const base = { ...requiredOnly(doc, o.op.requestBody!.content["application/json"]!.schema), ...(FOREIGN_ID_CONTEXT[c.name]?.(caller.ids) ?? {}) };
    body = JSON.stringify(withValue(base, field.at, value));
    headers["Content-Type"] = "application/json";
  }
  const res = await SELF.fetch(url, { method: o.method, headers, body });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as any, sent: `${o.method} ${url}${body ? ` ${body}` : ""}` };
}

const cases: Case[] = [];
const unclassified: string[] = [];
for (const o of operations(doc)) {
  const kind = accessOf(o.op).kind;
  for (const field of idFieldsOf(doc, o)) {
    const name = `${o.id}.${field.name}`;
    if (NOT_ORGANIZATION_IDS[field.name] || NOT_ORGANIZATION_IDS[name]) continue;
    // the operator acts on every organization: an org's id in its body is the operator's to name
    if (kind === "operator") continue;
    if ((kind === "partner" || kind === "console") && ID_FIELD_KINDS[field.name]) cases.push({ o, field, name });
    else unclassified.push(`${o.method} ${o.path} (${kind}): ${field.in} field ${field.at.join(".")}`);
  }
}

describe("security matrix: another organization's ids in request bodies and queries", () => {
  it("every id-named request field is classified (a resource kind to try, or a reviewed reason it names none)", () => {
    expect(unclassified, "add the field to ID_FIELD_KINDS or NOT_ORGANIZATION_IDS in test/security/matrix/reviewed.ts").toEqual([]);
  });

  it("finds the ids the issue names, and more, in the document", () => {
    const names = cases.map((c) => c.name);
    for (const expected of ["createEnvelope.template_id", "updateBulkBatch.master_template_id", "setBulkItems.customer_ids", "listEnvelopes.customer_id"]) expect(names).toContain(expected);
  });

  for (const c of cases) {
    const expected = FOREIGN_ID_ANSWERS[c.name]?.status ?? 404;
    const writes = FOREIGN_ID_ANSWERS[c.name]?.writes ?? [];
    it(`${c.name} (${c.field.in}): another organization's id -> ${expected}, as an id that exists nowhere, and nothing changes`, async () => {
      const w = await theWorld();
      const foreign = w.owner.ids[ID_FIELD_KINDS[c.field.name]!]!;
      const before = await snapshot();
      const res = await send(c, w.intruder, foreign);
      const after = await snapshot();
      expect(res.status, `${res.sent} -> ${res.text}`).toBe(expected);
      expect(changedTables(before, after).filter((t) => !writes.includes(t)), `${res.sent} -> ${res.text}`).toEqual([]);
      if (expected === 200) {
        // served, but the foreign id matched or added nothing
        const listed = res.body.data;
        if (Array.isArray(listed)) expect(listed).toEqual([]);
        else expect(listed.rejected, res.text).toEqual([foreign]);
      } else {
        expect(Object.keys(res.body).filter((k) => !["error", "details", "code"].includes(k)), res.text).toEqual([]);
        expect(typeof res.body.error).toBe("string");
      }
      const unknown = await send(c, w.intruder, nowhere(foreign));
      expect(unknown.status, `${unknown.sent} -> ${unknown.text}`).toBe(res.status);
      expect(unknown.text.replaceAll(nowhere(foreign), "<id>"), "the answer tells a foreign id from one that exists nowhere").toBe(res.text.replaceAll(foreign, "<id>"));
    });
  }
});
