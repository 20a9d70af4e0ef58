import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../src/app";
import { call, createEnvelope, envelopeBody, newTenant } from "./helpers/api";
import { party, vaulted } from "./helpers/control";
import { sentOtpEnvelope } from "./helpers/otp";

type Doc = { openapi: string; paths: Record<string, Record<string, { security?: Record<string, string[]>[]; responses: Record<string, unknown> }>> };

async function doc(): Promise<Doc> {
  const res = await SELF.fetch("http://localhost/api/v2/openapi.json");
  expect(res.status).toBe(200);
  return (await res.json()) as Doc;
}

/** Routes served for the document itself and for static files, not API operations. */
// HTML pages, not API operations: the reference, and the signing page and widgets (src/pages)
const NOT_OPERATIONS = new Set([
  "GET /api/v2/openapi.json",
  "GET /api/v2/docs",
  "GET /static/*",
  "GET /embed/s/:slug",
  "GET /sign/s/:slug",
  "GET /embed/sign/:envelopeId",
  "GET /embed/vault/:envelopeId",
]);

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 and describes every route the app serves", async () => {
    const d = await doc();
    expect(d.openapi).toBe("3.1.0");
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(d.paths)) {
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ":$1")}`);
    }
    const served = app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => `${r.method} ${r.path}`)
      .filter((r) => !NOT_OPERATIONS.has(r));
    expect(served.length).toBeGreaterThan(10);
    for (const route of served) {
      expect(documented.has(route), `${route} is not in the OpenAPI document`).toBe(true);
    }
  });

  it("names each partner route's scope and its error statuses, with examples", async () => {
    const d = await doc();
    const create = d.paths["/api/v2/partner/envelopes"]!.post!;
    expect(create.security).toEqual([{ ApiKeyAuth: ["envelopes:write"] }]);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["201", "401", "403", "415", "422", "429"]));
    const compliance = d.paths["/api/v2/partner/envelopes/{envelope_id}/compliance"]!.get!;
    expect(compliance.security).toEqual([{ ApiKeyAuth: ["compliance:read"] }]);
    expect(JSON.stringify(d)).toContain("Retail installment contract #1042");
  });

  it("declares each route's access once, as tools read it: scopes, console roles, public operations, optional bodies", async () => {
    const d = (await doc()) as Doc & { paths: Record<string, Record<string, { operationId?: string; requestBody?: { required?: boolean } }>> };
    const rotate = d.paths["/api/v2/webhooks/endpoints/{endpoint_id}/rotate-secret"]!.post!;
    expect(rotate.operationId).toBe("rotateWebhookSecret");
    expect(rotate.security).toEqual([{ BearerAuth: ["admin"] }]);
    expect(d.paths["/api/v2/envelopes/{envelope_id}/auto-vault-consent"]!.post!.security).toEqual([{ BearerAuth: ["admin"] }, { BearerAuth: ["custodian"] }]);
    expect(d.paths["/api/v2/templates/{template_id}"]!.get!.security).toEqual([{ BearerAuth: [] }]);
    expect(d.paths["/api/v2/embed/token"]!.post!.security).toEqual([{ ApiKeyAuth: ["esign:write"] }, { ApiKeyAuth: ["vault:read"] }]);
    for (const path of ["/health", "/api/v2/signing/{slug}", "/storage/v/{vault_id}/{file}"]) expect(d.paths[path]!.get!.security, path).toEqual([]);
    expect(d.paths["/api/v2/partner/envelopes/{envelope_id}/send"]!.post!.requestBody!.required).toBe(false);
    expect(d.paths["/api/v2/partner/envelopes"]!.post!.requestBody!.required).toBe(true);
  });

  it("writes the envelope read-back's nullable objects so that null validates, without making their components nullable", async () => {
    const d = (await doc()) as Doc & { components: { schemas: Record<string, any> } };
    const schemas = d.components.schemas;
    const anyOfNull = (name: string) => [{ $ref: `#/components/schemas/${name}` }, { type: "null" }];
    // a schema's own properties, whichever way the generator writes an extension (EnvelopeDetail extends Envelope)
    const own = (schema: any): Record<string, any> => ({ ...(schema.properties ?? {}), ...Object.assign({}, ...(schema.allOf ?? []).map((s: any) => s.properties ?? {})) });
    const props = own(schemas.EnvelopeDetail!);
    expect(props.reminders.anyOf).toEqual(anyOfNull("ReminderSchedule"));
    expect(props.payment.anyOf).toEqual(anyOfNull("PaymentState"));
    expect(own(schemas.Envelope!).secured_party.anyOf).toEqual(anyOfNull("SecuredParty"));
    expect(schemas.EnvelopeSigner!.properties.consent.anyOf).toEqual(anyOfNull("SignerConsentState"));
    expect(schemas.EnvelopeSigner!.properties.kba.anyOf).toEqual(anyOfNull("SignerKbaState"));
    for (const name of ["SecuredParty", "ReminderSchedule", "PaymentState", "SignerConsentState", "SignerKbaState", "EnvelopeSigner", "EnvelopeEvent"]) {
      expect(schemas[name]!.type, name).toBe("object");
    }
    expect(JSON.stringify(d)).not.toMatch(/"allOf":\[\{"\$ref":"#\/components\/schemas\/(ReminderSchedule|PaymentState|SignerConsentState|SignerKbaState)"\}/);
    const get = d.paths["/api/v2/partner/envelopes/{envelope_id}"]!.get! as any;
    expect(get.responses["200"].content["application/json"].schema.properties.data.$ref).toBe("#/components/schemas/EnvelopeDetail");
    const events = d.paths["/api/v2/partner/envelopes/{envelope_id}/events"]!.get! as any;
    expect(events.security).toEqual([{ ApiKeyAuth: ["envelopes:read"] }]);
    expect(events.operationId).toBe("listEnvelopeEvents");
    const list = events.responses["200"].content["application/json"].schema;
    expect(list.properties.data.items.$ref).toBe("#/components/schemas/EnvelopeEvent");
    expect(list.properties.meta.$ref).toBe("#/components/schemas/PageMeta");
    expect(Object.keys(events.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "404", "429"]));
  });

  it("serves a human reference page whose scripts and styles come from this Worker, not a CDN", async () => {
    const res = await SELF.fetch("http://localhost/api/v2/docs");
    expect(res.status).toBe(200);
    const html = await res.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset.startsWith("/static/"), asset).toBe(true);
      const file = await SELF.fetch(`http://localhost${asset}`);
      expect(file.status, asset).toBe(200);
      expect((await file.text()).length).toBeGreaterThan(100);
    }
    expect(res.headers.get("Content-Security-Policy")).toMatch(/script-src 'self'/);
  });
});

describe("nullable references in the OpenAPI document", () => {
  it("accept null: no allOf pairs a $ref with a null type (no value passes that), and the vault record's pledgor and pending_transfer allow null", async () => {
    const document = (await doc()) as unknown as Record<string, any>;
    const offenders: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (!node || typeof node !== "object") return;
      const o = node as Record<string, any>;
      if (Array.isArray(o.allOf) && o.allOf.some((s: any) => s?.$ref) && o.allOf.some((s: any) => Array.isArray(s?.type) && s.type.includes("null"))) offenders.push(path);
      for (const [k, v] of Object.entries(o)) walk(v, `${path}/${k}`);
    };
    walk(document, "#");
    expect(offenders).toEqual([]);
    const record = document.components.schemas.VaultRecord ?? Object.values(document.components.schemas).find((s: any) => s.properties?.pledgor && s.properties?.pending_transfer);
    for (const name of ["pledgor", "pending_transfer"]) {
      const property = record.properties[name];
      expect(property.anyOf, name).toContainEqual({ type: "null" });
      expect(property.anyOf.some((s: any) => typeof s.$ref === "string"), name).toBe(true);
    }
  });
});

type Answered = { status: number; headers: Headers; body: any };
type DocOperation = { parameters?: { $ref?: string; name?: string }[]; responses: Record<string, { headers?: Record<string, unknown>; "x-error-codes"?: string[] }> };

/** The headers the service may send that an answer's documented response must then declare. */
const SHARED_HEADERS = ["X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "Idempotent-Replayed"];

/** Checks an answer against its operation's documented response: every shared header it carries is declared there, and an error's code is listed. */
function expectDocumented(d: Doc, method: string, path: string, res: Answered) {
  const op = d.paths[path]![method] as unknown as DocOperation;
  const response = op.responses[String(res.status)];
  expect(response, `${method} ${path} declares ${res.status}`).toBeDefined();
  const sent = SHARED_HEADERS.filter((h) => res.headers.get(h) !== null);
  expect(sent).toContain("X-Request-Id");
  for (const header of sent) expect(Object.keys(response!.headers ?? {}), `${method} ${path} ${res.status} declares ${header}`).toContain(header);
  if (res.status >= 400) expect(response!["x-error-codes"], `${method} ${path} ${res.status} lists ${res.body.code}`).toContain(res.body.code);
}

describe("headers and error codes the document declares, against real answers", () => {
  it("a real 429 of the per-key limit: Retry-After, the X-RateLimit headers and X-Request-Id are declared, and rate_limited is listed", async () => {
    const d = await doc();
    const t = await newTenant({ rpm: 1 });
    expectDocumented(d, "get", "/api/v2/partner/envelopes", await call("GET", "/partner/envelopes", { key: t.key }));
    const limited = await call("GET", "/partner/envelopes", { key: t.key });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("Retry-After")).toMatch(/^\d+$/);
    expect(limited.headers.get("X-RateLimit-Remaining")).toBe("0");
    expectDocumented(d, "get", "/api/v2/partner/envelopes", limited);
  });

  it("an idempotent replay's Idempotent-Replayed is declared, on the operations that take Idempotency-Key and on no others", async () => {
    const d = await doc();
    const t = await newTenant();
    const headers = { "Idempotency-Key": `oas-${crypto.randomUUID()}` };
    const body = envelopeBody();
    const first = await call("POST", "/partner/envelopes", { key: t.key, body, headers });
    const replay = await call("POST", "/partner/envelopes", { key: t.key, body, headers });
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.body.data.envelope_id).toBe(first.body.data.envelope_id);
    expectDocumented(d, "post", "/api/v2/partner/envelopes", replay);
    // the same key with another body: the 422 and its code are documented
    const reused = await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody(), headers });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe("idempotency_key_reused");
    expectDocumented(d, "post", "/api/v2/partner/envelopes", reused);

    const takesKey = (op: DocOperation) => (op.parameters ?? []).some((p) => p.$ref === "#/components/parameters/IdempotencyKey");
    for (const [path, ops] of Object.entries(d.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const partnerPost = method === "post" && (op.security ?? []).some((s) => "ApiKeyAuth" in s);
        expect(takesKey(op as unknown as DocOperation), `${method} ${path}`).toBe(partnerPost);
        const replayed = Object.values((op as unknown as DocOperation).responses).some((r) => "Idempotent-Replayed" in (r.headers ?? {}));
        expect(replayed, `${method} ${path}`).toBe(partnerPost);
      }
    }
  });

  it("a sample of real refusals: each code is one its operation lists for that status, each header declared", async () => {
    const d = await doc();
    const t = await newTenant({ scopes: ["envelopes:read"] });
    const writer = await newTenant();
    const e = await createEnvelope(writer.key);
    await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: writer.key, body: { reason: "x" } });
    const samples: [string, string, Answered][] = [
      ["get", "/api/v2/partner/envelopes", await call("GET", "/partner/envelopes")],
      ["post", "/api/v2/partner/envelopes", await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody() })],
      ["post", "/api/v2/partner/envelopes", await call("POST", "/partner/envelopes", { key: writer.key, body: { customer_email: 5 } })],
      ["get", "/api/v2/partner/envelopes/{envelope_id}", await call("GET", "/partner/envelopes/env_unknown0000000000000000000", { key: t.key })],
      ["post", "/api/v2/partner/envelopes/{envelope_id}/void", await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: writer.key, body: { reason: "again" } })],
      ["get", "/api/v2/templates/{template_id}", await call("GET", "/templates/tmpl_x")],
      ["get", "/api/v2/operator/orgs", await call("GET", "/operator/orgs")],
    ];
    expect(samples.map(([, , r]) => r.status)).toEqual([401, 403, 422, 404, 422, 401, 401]);
    for (const [method, path, res] of samples) expectDocumented(d, method, path, res);
  });
});

/** Every source file of the service, as text: the codes it can answer are read from where they are thrown. */
const SOURCES = import.meta.glob<string>(["../src/**/*.ts", "../durable-objects/**/*.ts"], { query: "?raw", import: "default", eager: true });

/** The top-level arguments of the call whose opening parenthesis ends at `from` (strings and nesting respected). */
function callArguments(text: string, from: number): string[] {
  const args: string[] = [];
  let depth = 1;
  let quote: string | null = null;
  let start = from;
  for (let i = from; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === "`") quote = ch;
    else if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch) && --depth === 0) return [...args, text.slice(start, i).trim()].filter(Boolean);
    else if (ch === "," && depth === 1) {
      args.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  return args;
}

/**
 * Each specific `code` the source can answer, with its status: the code argument of every `new ApiError(status,
 * message, details, code)`, `conflict(message, details, code)` and `unprocessable(message, details, code)`,
 * a string or a constant (`export const NOT_CONTROLLER = "not_controller"`) or a local chosen between strings.
 */
function thrownCodes(): { code: string; status: number; where: string }[] {
  const constants = new Map<string, string>();
  for (const text of Object.values(SOURCES)) for (const m of text.matchAll(/export const ([A-Z][A-Z_]+) = "([a-z_]+)";/g)) constants.set(m[1]!, m[2]!);
  const found: { code: string; status: number; where: string }[] = [];
  for (const [file, text] of Object.entries(SOURCES)) {
    if (file.endsWith("/lib/errors.ts")) continue; // the helpers themselves
    for (const m of text.matchAll(/\b(new ApiError|conflict|unprocessable)\(/g)) {
      const args = callArguments(text, m.index! + m[0].length);
      const [status, at] = m[1] === "new ApiError" ? [Number(args[0]), 3] : [m[1] === "conflict" ? 409 : 422, 2];
      const arg = args[at];
      if (!arg) continue;
      const where = `${file}:${text.slice(0, m.index).split("\n").length}`;
      const local = new RegExp(`const ${arg} = ([^;]+);`).exec(text)?.[1];
      const codes = /^"[a-z_]+"$/.test(arg) ? [arg.slice(1, -1)] : constants.has(arg) ? [constants.get(arg)!] : [...(local ?? "").matchAll(/"([a-z_]+)"/g)].map((c) => c[1]!);
      expect(codes.length, `${where}: the code ${arg} is not a string the test can read`).toBeGreaterThan(0);
      for (const code of codes) found.push({ code, status, where });
    }
  }
  return found;
}

describe("every specific error code, declared on the operations that answer it", () => {
  it("each code the source can throw is listed, under its status, by at least one operation of the served document", async () => {
    const d = (await doc()) as unknown as { paths: Record<string, Record<string, DocOperation>> };
    const listed = new Set<string>();
    for (const ops of Object.values(d.paths)) {
      for (const op of Object.values(ops)) for (const [status, r] of Object.entries(op.responses)) for (const code of r["x-error-codes"] ?? []) listed.add(`${status} ${code}`);
    }
    const thrown = thrownCodes();
    expect(new Set(thrown.map((t) => t.code)).size).toBeGreaterThan(60);
    const missing = thrown.filter((t) => !listed.has(`${t.status} ${t.code}`)).map((t) => `${t.status} ${t.code} (${t.where})`);
    expect(missing).toEqual([]);
  });

  it("real refusals of control, keys, retention, payments, attachments, corrections and the text-message step answer codes their operations list", async () => {
    const d = await doc();
    const owner = await party("Lakeside Motors");
    const other = await party("Second Bank");
    const { vaultId } = await vaulted(owner);
    const samples: [string, string, Answered, string][] = [];
    const sample = async (method: string, path: string, code: string, run: Promise<Answered>) => samples.push([method, path, await run, code]);
    const offer = { kind: "assignment", to_org_id: other.orgId };
    const first = await call("POST", `/partner/vault/${vaultId}/transfers`, { key: owner.key, body: offer });
    expect(first.status).toBe(201);
    const transfer = first.body.data.transfer_id;
    await sample("post", "/api/v2/partner/vault/{vault_id}/transfers", "transfer_pending", call("POST", `/partner/vault/${vaultId}/transfers`, { key: owner.key, body: offer }));
    await sample("post", "/api/v2/partner/vault/transfers/{transfer_id}/accept", "not_receiver", call("POST", `/partner/vault/transfers/${transfer}/accept`, { key: owner.key }));
    await sample("post", "/api/v2/partner/vault/transfers/{transfer_id}/cancel", "not_sender", call("POST", `/partner/vault/transfers/${transfer}/cancel`, { key: other.key }));
    await sample("post", "/api/v2/partner/vault/{vault_id}/paid-off", "not_controller", call("POST", `/partner/vault/${vaultId}/paid-off`, { key: other.key, body: {} }));
    expect((await call("POST", `/partner/vault/transfers/${transfer}/cancel`, { key: owner.key })).status).toBe(200);
    await sample("post", "/api/v2/partner/vault/transfers/{transfer_id}/cancel", "transfer_not_pending", call("POST", `/partner/vault/transfers/${transfer}/cancel`, { key: owner.key }));
    await sample("post", "/api/v2/partner/vault/{vault_id}/release-pledge", "no_pledge", call("POST", `/partner/vault/${vaultId}/release-pledge`, { key: owner.key }));
    await sample("post", "/api/v2/partner/vault/{vault_id}/destroy", "retention_period", call("POST", `/partner/vault/${vaultId}/destroy`, { key: owner.key }));
    const hold = await call("POST", `/partner/vault/${vaultId}/holds`, { key: owner.key, body: { reason: "Audit" } });
    expect(hold.status).toBe(201);
    await sample("post", "/api/v2/partner/vault/{vault_id}/destroy", "legal_hold", call("POST", `/partner/vault/${vaultId}/destroy`, { key: owner.key }));
    expect((await call("DELETE", `/partner/vault/${vaultId}/holds/${hold.body.data.hold_id}`, { key: owner.key })).status).toBe(200);
    await sample("delete", "/api/v2/partner/vault/{vault_id}/holds/{hold_id}", "hold_released", call("DELETE", `/partner/vault/${vaultId}/holds/${hold.body.data.hold_id}`, { key: owner.key }));
    expect((await call("POST", `/partner/vault/${vaultId}/paid-off`, { key: owner.key, body: {} })).status).toBe(200);
    await sample("post", "/api/v2/partner/vault/{vault_id}/transfers", "control_closed", call("POST", `/partner/vault/${vaultId}/transfers`, { key: owner.key, body: offer }));
    await sample("post", "/api/v2/partner/vault/control-keys", "invalid_control_key", call("POST", "/partner/vault/control-keys", { key: owner.key, body: { jwk: { kty: "oct", k: "c2VjcmV0" } } }));
    const payment = { amount_cents: 150_000, currency: "usd", payer_email: "ana@example.com" };
    await sample("post", "/api/v2/partner/envelopes", "payments_not_set_up", call("POST", "/partner/envelopes", { key: owner.key, body: envelopeBody({ payment }) }));
    const unsent = await createEnvelope(owner.key);
    await sample("get", "/api/v2/partner/envelopes/{envelope_id}/attachments/{field_name}/signed-url", "attachment_field_not_found", call("GET", `/partner/envelopes/${unsent.envelope_id}/attachments/proof_of_income/signed-url`, { key: owner.key }));

    const s = await sentOtpEnvelope();
    await sample("post", "/api/v2/signing/{slug}/view", "otp_required", call("POST", `/signing/${s.slug}/view`));
    await sample("post", "/api/v2/signing/{slug}/otp/verify", "otp_expired", call("POST", `/signing/${s.slug}/otp/verify`, { body: { code: "000000" } }));
    const texted = await call("POST", `/signing/${s.slug}/otp`);
    expect(texted.status, JSON.stringify(texted.body)).toBe(200);
    await sample("post", "/api/v2/signing/{slug}/otp", "otp_send_limit", call("POST", `/signing/${s.slug}/otp`));
    await sample("post", "/api/v2/signing/{slug}/otp/verify", "otp_invalid", call("POST", `/signing/${s.slug}/otp/verify`, { body: { code: "000000" } }));
    // the send's invitation may be re-sent once; a second re-send within 10 minutes is refused
    const resend = `/partner/envelopes/${s.envelopeId}/signers/${s.signerId}/resend`;
    expect((await call("POST", resend, { key: s.key })).status).toBe(200);
    await sample("post", "/api/v2/partner/envelopes/{envelope_id}/signers/{signer_id}/resend", "resend_too_soon", call("POST", resend, { key: s.key }));

    for (const [method, path, res, code] of samples) {
      expect(res.body.code, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(code);
      expectDocumented(d, method, path, res);
    }
  });
});
