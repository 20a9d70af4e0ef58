import { SELF } from "cloudflare:test";

/** The parts of the served OpenAPI document the security matrix reads. */
export type Schema = Record<string, any>;
export type Parameter = { name: string; in: "path" | "query" | "header" | "cookie"; required?: boolean; schema?: Schema };
export type Operation = {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema; example?: unknown }> };
  responses: Record<string, unknown>;
};
export type Document = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

export type Op = { method: string; path: string; id: string; op: Operation };

const METHODS = new Set(["get", "post", "put", "patch", "delete"]);

/** The document as a client would fetch it. */
export async function servedDocument(): Promise<Document> {
  const res = await SELF.fetch("http://localhost/api/v2/openapi.json");
  if (res.status !== 200) throw new Error(`GET /api/v2/openapi.json answered ${res.status}`);
  return (await res.json()) as Document;
}

/** Every operation of the document, named by its operationId (or by method and path when it has none). */
export function operations(doc: Document): Op[] {
  const out: Op[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (METHODS.has(method)) out.push({ method: method.toUpperCase(), path, id: op.operationId ?? `${method.toUpperCase()} ${path}`, op });
    }
  }
  return out;
}

/**
 * Who may call an operation, read from its declared `security` alone:
 * - public: `security: []` (the credential, if any, is in the URL: a signer's slug, a signed link);
 * - partner: API key, needing one of `scopes`;
 * - console: bearer access token of a member, needing one of `roles` (none: any member);
 * - operator: the operator token; embed: an embed token.
 * Anything else (no `security`, an unknown scheme, schemes mixed) cannot be classified.
 */
export type Access =
  | { kind: "public" }
  | { kind: "partner"; scopes: string[] }
  | { kind: "console"; roles: string[] }
  | { kind: "operator" }
  | { kind: "embed" }
  | { kind: "unclassified"; reason: string };

const SCHEMES: Record<string, "partner" | "console" | "operator" | "embed"> = {
  ApiKeyAuth: "partner",
  BearerAuth: "console",
  OperatorToken: "operator",
  EmbedToken: "embed",
};

export function accessOf(op: Operation): Access {
  const security = op.security;
  if (!Array.isArray(security)) return { kind: "unclassified", reason: "declares no `security` (public operations declare `security: []`)" };
  if (security.length === 0) return { kind: "public" };
  const names = new Set(security.flatMap((req) => Object.keys(req)));
  if (names.size !== 1 || security.some((req) => Object.keys(req).length !== 1)) {
    return { kind: "unclassified", reason: `mixes security schemes: ${JSON.stringify(security)}` };
  }
  const [scheme] = [...names];
  const kind = SCHEMES[scheme!];
  if (!kind) return { kind: "unclassified", reason: `unknown security scheme ${scheme}` };
  const values = security.flatMap((req) => req[scheme!]!);
  if (kind === "partner") {
    if (values.length === 0 || security.some((req) => req[scheme!]!.length !== 1)) return { kind: "unclassified", reason: "a partner operation names one scope per alternative" };
    return { kind, scopes: values };
  }
  if (kind === "console") return { kind, roles: values };
  if (values.length > 0) return { kind: "unclassified", reason: `${scheme} takes no scopes` };
  return { kind };
}

export const pathParams = (op: Operation) => (op.parameters ?? []).filter((p) => p.in === "path");
export const documents = (op: Operation, status: number) => Object.prototype.hasOwnProperty.call(op.responses, String(status));
