/**
 * The MCP tools are the partner operations of the OpenAPI document, one tool per operation under
 * /api/v2/partner, so the tool list follows the API with no second list to keep in step. A tool's input
 * is one flat object: the operation's path and query parameters by name, `control_signature` where the
 * operation takes a Control-Signature header, and `body` (the JSON request body's schema, inlined) or,
 * for a multipart upload, the form's fields with each file given as a local path.
 */
export type JsonSchema = Record<string, unknown>;

export type ToolDefinition = {
  name: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, JsonSchema>; required: string[] };
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  pathParams: string[];
  queryParams: string[];
  headerParams: { arg: string; header: string }[];
  body: "json" | "multipart" | null;
  /** multipart only: the form fields that are files (given as local paths) */
  fileFields: string[];
};

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: JsonSchema }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
};
export type OpenApiDocument = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, JsonSchema> } };

const PARTNER_PREFIX = "/api/v2/partner/";
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

export function partnerTools(doc: OpenApiDocument): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith(PARTNER_PREFIX) && path !== PARTNER_PREFIX.slice(0, -1)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (op) tools.push(toolOf(doc, method, path, op));
    }
  }
  return tools.sort((a, b) => a.name.localeCompare(b.name));
}

function toolOf(doc: OpenApiDocument, method: (typeof METHODS)[number], path: string, op: Operation): ToolDefinition {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const tool: ToolDefinition = {
    name: snakeCase(op.operationId ?? `${method}_${path}`),
    description: [op.summary, op.description].filter(Boolean).join("\n\n") || `${method.toUpperCase()} ${path}`,
    inputSchema: { type: "object", properties, required },
    method: method.toUpperCase() as ToolDefinition["method"],
    path,
    pathParams: [],
    queryParams: [],
    headerParams: [],
    body: null,
    fileFields: [],
  };
  for (const p of op.parameters ?? []) {
    if (p.in === "header" && p.name.toLowerCase() === "idempotency-key") continue; // the SDK sets one on every POST
    const arg = p.in === "header" ? snakeCase(p.name) : p.name;
    properties[arg] = { ...inline(doc, p.schema ?? { type: "string" }), ...(p.description ? { description: p.description } : {}) };
    if (p.required || p.in === "path") required.push(arg);
    if (p.in === "path") tool.pathParams.push(p.name);
    else if (p.in === "query") tool.queryParams.push(p.name);
    else if (p.in === "header") tool.headerParams.push({ arg, header: p.name });
  }
  const content = op.requestBody?.content ?? {};
  if (content["application/json"]) {
    tool.body = "json";
    properties.body = inline(doc, content["application/json"].schema ?? { type: "object" });
    if (op.requestBody?.required) required.push("body");
  } else if (content["multipart/form-data"]) {
    tool.body = "multipart";
    const form = inline(doc, content["multipart/form-data"].schema ?? {}) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [field, schema] of Object.entries(form.properties ?? {})) {
      const isFile = schema.format === "binary" || schema.type === "file" || (typeof schema.contentMediaType === "string" && schema.type !== "object");
      if (isFile) tool.fileFields.push(field);
      properties[field] = isFile ? { type: "string", description: `Path of a local file to upload as \`${field}\`` } : schema;
      if (form.required?.includes(field)) required.push(field);
    }
  }
  return tool;
}

/** The schema with every `#/components/schemas/…` reference replaced by its target (a cycle stops at `{}`). */
export function inline(doc: OpenApiDocument, schema: JsonSchema, seen: string[] = []): JsonSchema {
  if (Array.isArray(schema)) return schema.map((s) => (typeof s === "object" && s !== null ? inline(doc, s as JsonSchema, seen) : s)) as unknown as JsonSchema;
  const ref = schema.$ref;
  if (typeof ref === "string") {
    const name = ref.replace("#/components/schemas/", "");
    if (seen.includes(name)) return {};
    const target = doc.components?.schemas?.[name];
    return target ? inline(doc, target, [...seen, name]) : {};
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "example" || key === "examples") continue;
    out[key] = typeof value === "object" && value !== null ? inline(doc, value as JsonSchema, seen) : value;
  }
  return out;
}

const snakeCase = (s: string) =>
  s
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_|_$/g, "")
    .toLowerCase();
