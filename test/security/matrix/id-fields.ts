import type { Document, Op, Schema } from "./document";

/**
 * An id a request names outside its path: a JSON body field (`at` is its place in the body, nested
 * objects and the elements of lists of objects included) or a query parameter, found in the operation's declared schemas, so a field added
 * later is found the day it lands. Names ending in `_id` or `_ids` are ids.
 */
export type IdField = { name: string; in: "body" | "query"; at: string[]; list: boolean };

const ID_NAME = /_ids?$/;

function resolve(doc: Document, schema: Schema | undefined, depth = 0): Schema | undefined {
  if (!schema || depth > 8) return undefined;
  if (typeof schema.$ref === "string") return resolve(doc, doc.components?.schemas?.[schema.$ref.split("/").pop()!], depth + 1);
  return schema;
}

/** Every property schema of an object schema, through allOf/anyOf/oneOf. */
function propertiesOf(doc: Document, schema: Schema | undefined, depth = 0): Record<string, Schema> {
  const s = resolve(doc, schema);
  if (!s || depth > 8) return {};
  const out: Record<string, Schema> = { ...(s.properties ?? {}) };
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    for (const part of (s[key] as Schema[] | undefined) ?? []) Object.assign(out, propertiesOf(doc, part, depth + 1));
  }
  return out;
}

const isArray = (doc: Document, schema: Schema | undefined) => {
  const s = resolve(doc, schema);
  return s?.type === "array" || (Array.isArray(s?.type) && s!.type.includes("array"));
};

/** In `at`, the element of a list of objects (`items[].customer_id` is `["items", ITEM, "customer_id"]`). */
export const ITEM = "[]";

function bodyFields(doc: Document, schema: Schema | undefined, at: string[], depth = 0): IdField[] {
  if (depth > 4) return [];
  const out: IdField[] = [];
  for (const [name, prop] of Object.entries(propertiesOf(doc, schema))) {
    const element = isArray(doc, prop) ? (resolve(doc, prop)!.items as Schema | undefined) : undefined;
    if (ID_NAME.test(name)) out.push({ name, in: "body", at: [...at, name], list: isArray(doc, prop) });
    else if (Object.keys(propertiesOf(doc, prop)).length > 0) out.push(...bodyFields(doc, prop, [...at, name], depth + 1));
    // a list of objects: the ids each element names
    else if (element && Object.keys(propertiesOf(doc, element)).length > 0) out.push(...bodyFields(doc, element, [...at, name, ITEM], depth + 1));
  }
  return out;
}

export function idFieldsOf(doc: Document, o: Op): IdField[] {
  const json = o.op.requestBody?.content["application/json"]?.schema;
  const query = (o.op.parameters ?? []).filter((p) => p.in === "query" && ID_NAME.test(p.name));
  return [...bodyFields(doc, json, []), ...query.map((p): IdField => ({ name: p.name, in: "query", at: [p.name], list: isArray(doc, p.schema) }))];
}

/** `body` with the value at `at` set (intermediate objects created). */
export function withValue(body: Record<string, unknown>, at: string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = at;
  const inner = body[head!];
  if (rest[0] === ITEM) return { ...body, [head!]: [withValue({}, rest.slice(1), value)] };
  return { ...body, [head!]: rest.length === 0 ? value : withValue(inner && typeof inner === "object" && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {}, rest, value) };
}
