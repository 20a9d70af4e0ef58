import { makePdf } from "../../helpers/pdf";
import type { Document, Operation, Schema } from "./document";

/** A value the schema accepts: its example when it has one, else the smallest value built from its rules. */
export function sample(doc: Document, schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 8) return undefined;
  if (typeof schema.$ref === "string") return sample(doc, doc.components?.schemas?.[schema.$ref.split("/").pop()!], depth + 1);
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ["anyOf", "oneOf"]) {
    if (Array.isArray(schema[key])) return sample(doc, schema[key].find((s: Schema) => s.type !== "null") ?? schema[key][0], depth + 1);
  }
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s: Schema) => sample(doc, s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const name of schema.required ?? []) out[name] = sample(doc, schema.properties?.[name], depth + 1);
      return out;
    }
    case "array":
      return (schema.minItems ?? 0) > 0 ? [sample(doc, schema.items, depth + 1)] : [];
    case "integer":
    case "number":
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case "boolean":
      return true;
    case "string": {
      if (schema.format === "email") return "matrix@example.com";
      if (schema.format === "uri" || schema.format === "url") return "https://example.com/matrix";
      if (schema.format === "date-time") return new Date().toISOString();
      if (schema.format === "date") return "2026-01-01";
      return "m".repeat(Math.min(Math.max(schema.minLength ?? 1, 8), schema.maxLength ?? 8));
    }
    default:
      return null;
  }
}

/** A path parameter's value for a resource that does not exist (but passes the parameter's own rules). */
export function unknownValue(schema: Schema | undefined): string {
  if (Array.isArray(schema?.enum)) return String(schema!.enum[0]);
  // a number parameter (a shard's): the highest it allows, which no test deployment binds
  if (schema?.type === "integer" || schema?.type === "number") return String(schema.maximum ?? 9999);
  const length = Math.min(Math.max(schema?.minLength ?? 0, 26), schema?.maxLength ?? 64);
  return `zz${"0".repeat(length - 2)}`;
}

/** The request body an operation declares, as a client would send it (JSON, or multipart with a PDF). */
export async function sampleBody(doc: Document, op: Operation): Promise<{ body?: BodyInit; contentType?: string }> {
  const content = op.requestBody?.content;
  if (!content) return {};
  const json = content["application/json"];
  if (json) return { body: JSON.stringify(json.example ?? sample(doc, json.schema) ?? {}), contentType: "application/json" };
  const multipart = content["multipart/form-data"];
  if (multipart) {
    const schema = multipart.schema ?? {};
    const form = new FormData();
    for (const name of schema.required ?? []) {
      const prop = schema.properties?.[name] ?? {};
      if (prop.format === "binary") form.append(name, new File([await makePdf()], "matrix.pdf", { type: "application/pdf" }));
      else form.append(name, String(sample(doc, prop)));
    }
    return { body: form };
  }
  throw new Error(`no sample for a body of type ${Object.keys(content).join(", ")}`);
}

/** Required query parameters, from their examples or rules. */
export function sampleQuery(doc: Document, op: Operation): string {
  const params = (op.parameters ?? []).filter((p) => p.in === "query" && p.required);
  if (params.length === 0) return "";
  return `?${new URLSearchParams(params.map((p): [string, string] => [p.name, String(sample(doc, p.schema))])).toString()}`;
}
