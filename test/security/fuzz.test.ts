import { createExecutionContext, env } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { ALL_SCOPES, newKey, OPERATOR_TOKEN } from "../helpers/api";
import { makePdf } from "../helpers/pdf";
import { embedToken } from "../helpers/payments";
import { invitationSlug, sendableEnvelope, sendEnvelope, signerRows } from "../helpers/signing";
import { accessOf, operations, pathParams, servedDocument, type Op, type Schema } from "./matrix/document";
import { sample, unknownValue } from "./matrix/samples";
import { org } from "./matrix/world";
import { allShardDbs, globalDb } from "../helpers/shards";

/**
 * Hostile input against every operation of the served OpenAPI document, with a valid credential of the
 * kind the operation declares (so the input reaches the route, not just the auth check): wrong types,
 * huge and deeply nested JSON, unicode edge cases, `__proto__` keys, invalid multipart, wrong content
 * types, hostile path ids and query strings. Every answer is below 500; every error is the spec's
 * `{ error, details? }` (plus the project's `code`) with an X-Request-Id; a refused request leaves every
 * table of the database exactly as it was (every row compared, not only counts).
 *
 * The cases call the Worker's fetch handler (`app.fetch`, what src/index.ts exports as `fetch`) with
 * the test bindings, not SELF.fetch: the test harness wraps its entrypoint's prototype in one more
 * Proxy on every SELF request, so thousands of them in one file slow each request down and end in
 * "Maximum call stack size exceeded" inside the harness (vitest-pool-workers test-internal.mjs).
 */
const TOTAL_CASES = 10_000;

const doc = await servedDocument();
const ops = operations(doc);
const perOp = Math.ceil(TOTAL_CASES / ops.length);
const totalCases = perOp * ops.length;

// ---- hostile values -------------------------------------------------------------------------------

const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "then"];
const UNICODE_EDGES = [
  "",
  " ",
  "\u0000",
  "\ud800", // lone high surrogate
  "\udfff", // lone low surrogate
  "\ufeff", // byte order mark
  "\u202e", // right-to-left override
  "\u200b\u200d", // zero-width
  "e\u0301\u0301\u0301", // combining marks
  "👩‍👩‍👧‍👦",
  "𝕏".repeat(200),
  "\uffff\ufffe",
  "\r\n\t",
  "İıſK", // case-folding traps
  "null",
  "undefined",
  "NaN",
  "-0",
  "1e309",
  "0x10",
  "a@b",
  "<script>alert(1)</script>",
  "'; DROP TABLE envelopes; --",
  "../../../etc/passwd",
  "%00",
  "lk_" + "0".repeat(40),
  "env_00000000000000000000000000",
];

const unicodeString = fc.oneof(
  fc.constantFrom(...UNICODE_EDGES),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ maxLength: 20 }),
);

const hugeString = fc.constantFrom(5_000, 70_000, 900_000).map((n) => "x".repeat(n));

const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 4 },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -1, 0, 1e308, -1e308, 2 ** 31, 2 ** 53),
    unicodeString,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...PROTO_KEYS)), tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** An object with an own `__proto__` (or other prototype) key, as JSON.parse would make it. */
function withOwn(base: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  Object.defineProperty(out, key, { value, enumerable: true, configurable: true, writable: true });
  return out;
}

/** Raw JSON text nested `depth` deep (arrays or objects). */
const deepJson = fc
  .tuple(fc.constantFrom(100, 1_000, 10_000, 100_000), fc.boolean())
  .map(([depth, arrays]) => (arrays ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth)));

const MALFORMED_JSON = ["{", "[1,", '{"a":}', "{'a':1}", "\u0000", "nul", '{"a":1}{"b":2}', '"\\ud800"', '{"a":"\\u00"}', "1".repeat(400), "\ufeff{}", '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}'];

const requestBodyOf = (o: Op) => o.op.requestBody?.content ?? {};

/** The operation's valid sample body with fields replaced, removed or added by hostile ones: reaches past the parser. */
function mutatedSample(o: Op): fc.Arbitrary<unknown> {
  const schema = requestBodyOf(o)["application/json"]?.schema;
  const base = (schema ? sample(doc, schema) : {}) as Record<string, unknown>;
  const props = Object.keys(resolve(schema)?.properties ?? {});
  const names = props.length > 0 ? fc.constantFrom(...props, ...PROTO_KEYS) : fc.constantFrom(...PROTO_KEYS);
  return fc
    .array(fc.tuple(names, fc.option(hostileValue, { nil: undefined })), { minLength: 1, maxLength: 4 })
    .map((edits) => {
      let out: Record<string, unknown> = base && typeof base === "object" && !Array.isArray(base) ? { ...base } : {};
      for (const [name, value] of edits) {
        if (value === undefined) delete out[name];
        else out = withOwn(out, name, value);
      }
      return out;
    });
}

function resolve(schema: Schema | undefined): Schema | undefined {
  if (schema && typeof schema.$ref === "string") return doc.components?.schemas?.[schema.$ref.split("/").pop()!];
  return schema;
}

type Body = { body?: BodyInit; contentType?: string; label: string };

const jsonBody = (o: Op): fc.Arbitrary<Body> =>
  fc.oneof(
    mutatedSample(o).map((v) => ({ body: JSON.stringify(v), label: "sample with hostile fields" })),
    hostileValue.map((v) => ({ body: JSON.stringify(v) ?? "null", label: "hostile JSON" })),
    fc.tuple(hostileValue, fc.constantFrom(...PROTO_KEYS)).map(([v, k]) => ({ body: JSON.stringify(withOwn({}, k, v)), label: "prototype key" })),
    hugeString.map((s) => ({ body: JSON.stringify({ name: s, envelope_name: s, url: s }), label: `huge string ${s.length}` })),
    fc.constant({ body: JSON.stringify({ a: "x".repeat(1_100_000) }), label: "body past the JSON limit" }),
    deepJson.map((s) => ({ body: s, label: `deep JSON ${s.length}` })),
    fc.constantFrom(...MALFORMED_JSON).map((s) => ({ body: s, label: "malformed JSON" })),
    fc.constant({ body: "", label: "empty body" }),
  );

const CRLF = "\r\n";
const pdf = await makePdf();

/** Multipart bodies, well-formed or not, and the Content-Type header that goes with them (boundary right or wrong). */
const multipartBody = (o: Op): fc.Arbitrary<Body> => {
  const schema = resolve(requestBodyOf(o)["multipart/form-data"]?.schema);
  const fileField = Object.entries(schema?.properties ?? {}).find(([, p]) => (p as Schema).format === "binary")?.[0] ?? "file";
  const textFields = Object.keys(schema?.properties ?? {}).filter((n) => n !== fileField);
  const part = fc.oneof(
    fc.tuple(fc.constantFrom(...textFields, ...PROTO_KEYS, fileField), hostileValue).map(([name, v]) => `Content-Disposition: form-data; name="${name}"${CRLF}${CRLF}${typeof v === "string" ? v : JSON.stringify(v)}`),
    fc.constantFrom<"pdf" | "junk" | "empty" | "truncated">("pdf", "junk", "empty", "truncated").map((kind) => {
      const content = kind === "pdf" ? new TextDecoder("latin1").decode(pdf) : kind === "junk" ? "%PDF-1.7\n%%EOF garbage \u0000\u00ff" : kind === "empty" ? "" : new TextDecoder("latin1").decode(pdf.subarray(0, pdf.length >> 1));
      return `Content-Disposition: form-data; name="${fileField}"; filename="a.pdf"${CRLF}Content-Type: application/pdf${CRLF}${CRLF}${content}`;
    }),
    fc.constantFrom("Content-Disposition: form-data", "garbage without headers", `Content-Disposition: form-data; name="${fileField}"; filename="\u202e.pdf"`, "Content-Disposition: form-data; name=\"x\"" + CRLF + "X: " + "h".repeat(10_000)),
  );
  return fc
    .tuple(fc.array(part, { maxLength: 4 }), fc.constantFrom("good", "no-close", "wrong-boundary", "no-boundary", "long-boundary", "no-first", "raw"), fc.uint8Array({ maxLength: 200 }))
    .map(([parts, shape, raw]) => {
      const boundary = "fuzzBoundary7MA4YWxkTrZu0gW";
      const text = parts.map((p) => `--${boundary}${CRLF}${p}${CRLF}`).join("") + (shape === "no-close" ? "" : `--${boundary}--${CRLF}`);
      const bytes = shape === "raw" ? raw : Uint8Array.from(text, (ch) => ch.charCodeAt(0) & 0xff);
      const body = shape === "no-first" ? bytes.subarray(Math.min(10, bytes.length)) : bytes;
      const contentType =
        shape === "wrong-boundary" ? "multipart/form-data; boundary=somethingElse" : shape === "no-boundary" ? "multipart/form-data" : shape === "long-boundary" ? `multipart/form-data; boundary=${"b".repeat(90)}` : `multipart/form-data; boundary=${boundary}`;
      return { body, contentType, label: `multipart ${shape} (${parts.length} parts)` };
    });
};

const CONTENT_TYPES = ["application/json", "application/json; charset=utf-16", "text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data", "application/vnd.api+json", "", "*/*", "application/json, text/plain", "multipart/mixed; boundary=x"];

/** Any body, under the Content-Type the operation expects, another one, or none. */
function bodyFor(o: Op): fc.Arbitrary<Body> {
  const content = requestBodyOf(o);
  const expected = content["multipart/form-data"] ? "multipart/form-data" : "application/json";
  const bodies = fc.oneof(jsonBody(o), multipartBody(o));
  return fc.tuple(bodies, fc.oneof({ weight: 3, arbitrary: fc.constant<string | null>(null) }, { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) })).map(([b, override]) => {
    if (override === null) return { ...b, contentType: b.contentType ?? expected };
    return { ...b, contentType: override || undefined, label: `${b.label} as ${override || "no Content-Type"}` };
  });
}

// ---- paths and queries --------------------------------------------------------------------------

const RAW_SEGMENTS = ["%", "%zz", "%E0%A4%A", "%ED%A0%80", "%00", "..", ".", "%2e%2e", "%2F", "a%2Fb", "%FF%FE", "%C0%AF", "~", "*"];

function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return "%ED%A0%80"; // a lone surrogate, as the UTF-8 bytes a client could still send
  }
}

/** A path id: a real one of the organization, an unknown well-formed one, or hostile text (encoded, or raw percent nonsense). */
function pathId(name: string, schema: Schema | undefined, real: Record<string, string>): fc.Arbitrary<string> {
  const options: fc.Arbitrary<string>[] = [
    fc.constant(encode(unknownValue(schema))),
    unicodeString.map((s) => encode(s) || "x"),
    fc.constantFrom(...RAW_SEGMENTS),
    fc.constantFrom(1_000, 9_000).map((n) => "z".repeat(n)),
    fc.constantFrom(...PROTO_KEYS),
  ];
  if (real[name]) options.unshift(fc.constant(encode(real[name]!)));
  return fc.oneof(...options);
}

function queryFor(o: Op): fc.Arbitrary<string> {
  const names = (o.op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
  const name = fc.oneof(fc.constantFrom(...names, ...PROTO_KEYS, "limit", "page", "cursor"), fc.string({ maxLength: 8 }));
  const value = fc.oneof(unicodeString, fc.constantFrom("-1", "0", "1e309", "99999999999999999999", "true", "[]", "{}", "x".repeat(5000), "%", "%ED%A0%80"));
  return fc.array(fc.tuple(name, value), { maxLength: 5 }).map((pairs) => {
    if (pairs.length === 0) return "";
    return "?" + pairs.map(([k, v]) => `${encode(k)}=${v.startsWith("%") ? v : encode(v)}`).join("&");
  });
}

// ---- the world ------------------------------------------------------------------------------------

type Fixture = { credential: (o: Op) => Record<string, string>; ids: Record<string, string>; orgId: string };

async function fixture(): Promise<Fixture> {
  const owner = await org("Fuzzed Bank");
  // one key with every scope and a limit the fuzz never reaches: the cases must reach the routes
  const { key } = await newKey(owner.orgId, ALL_SCOPES, 1_000_000);
  const sent = await sendableEnvelope(key);
  const send = await sendEnvelope(key, sent.envelope_id);
  if (send.status !== 200) throw new Error(`send: ${send.status} ${JSON.stringify(send.body)}`);
  const signer = (await signerRows(sent.envelope_id))[0]!;
  const signToken = await embedToken(key, sent.envelope_id, signer.email, "sign");
  const vaultToken = await embedToken(key, owner.ids.envelope_id!, "matrix@example.com", "vault");
  const embed = [signToken, vaultToken].filter((r) => r.status === 200).map((r) => r.body.data.token as string);
  if (embed.length === 0) throw new Error(`embed token: ${JSON.stringify(signToken.body)}`);
  let turn = 0;
  return {
    orgId: owner.orgId,
    ids: { ...owner.ids, slug: await invitationSlug(sent.envelope_id, signer.email), org_id: owner.orgId, key_id: "", customer_id: sent.customer_id },
    credential: (o): Record<string, string> => {
      const access = accessOf(o.op);
      switch (access.kind) {
        case "partner":
          return { "X-API-Key": key };
        case "console":
          return { Authorization: `Bearer ${owner.admin}` };
        case "operator":
          return { Authorization: `Bearer ${OPERATOR_TOKEN}` };
        case "embed":
          return { Authorization: `Bearer ${embed[turn++ % embed.length]}` };
        default:
          return {};
      }
    },
  };
}

// ---- the database --------------------------------------------------------------------------------

/**
 * Tables the service's own background work writes after an accepted request (the outbox relay marks
 * events dispatched, fan-out inserts deliveries, senders log attempts and e-mails): `events` is compared
 * by its rows (a refused request must not publish one), the rest not at all. `idempotency_keys` is left out: a refused request
 * sent with an Idempotency-Key stores its final refusal (400/404/422) to replay it, by design.
 */
const PIPELINE = new Set(["webhook_deliveries", "webhook_attempts", "email_outbox", "email_attempts"]);
const COUNTED = new Set(["events"]);

/**
 * Every database the service writes: the global one and each shard (one database when the pool binds
 * no shard of its own). All run the same migrations, so each has every table; a table's line holds its
 * rows in each of them.
 */
const DATABASES = [...new Set([globalDb, ...allShardDbs()])];

async function tablesOf() {
  const { results } = await globalDb.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT IN ('d1_migrations', 'idempotency_keys') ORDER BY name",
  ).all<{ name: string }>();
  return results.map((r) => r.name).filter((t) => !PIPELINE.has(t));
}

/**
 * Columns background work maintains on its own: the key limiter's alarm writes `last_used_at` a minute late;
 * an accepted request's webhook attempts (in its `waitUntil`, still running while the next batch is sent)
 * count an endpoint's failures in a row (services/webhooks/deliver.ts endpointHealth), so an endpoint the
 * fuzz created with an unreachable url changes these whenever an event reaches it.
 */
const BACKGROUND_COLUMNS = new Set(["api_keys.last_used_at", "webhook_endpoints.consecutive_failures", "webhook_endpoints.failing_since"]);

/** One query per table and database: every row, without the background columns (`events` by its row count). */
async function snapshotQueries(tables: string[]): Promise<D1PreparedStatement[][]> {
  const sql = await Promise.all(
    tables.map(async (t) => {
      if (COUNTED.has(t)) return `SELECT COUNT(*) AS rows FROM "${t}"`;
      const { results } = await globalDb.prepare(`SELECT name FROM pragma_table_info('${t}')`).all<{ name: string }>();
      const columns = results.map((c) => c.name).filter((c) => !BACKGROUND_COLUMNS.has(`${t}.${c}`));
      return `SELECT ${columns.map((c) => `"${c}"`).join(", ")} FROM "${t}" ORDER BY rowid`;
    }),
  );
  return DATABASES.map((db) => sql.map((s) => db.prepare(s)));
}

/** Every row of every table (in every database) compared, as one string per table. */
async function snapshot(tables: string[]): Promise<string[]> {
  const perDb = await Promise.all(DATABASES.map((db, d) => db.batch(queries[d]!)));
  return tables.map((t, i) => `${t}: ${perDb.map((rows) => JSON.stringify(rows[i]!.results)).join(" | ")}`);
}

/** SQLite's count of rows written on the databases' connections: unchanged means nothing was written at all. */
async function writes(): Promise<number> {
  let n = 0;
  for (const db of DATABASES) n += (await db.prepare("SELECT total_changes() AS n").first<{ n: number }>())!.n;
  return n;
}

const changedTables = (before: string[], after: string[]) => after.flatMap((line, i) => (line !== before[i] ? [line.split(":")[0]] : []));

// ---- the property -----------------------------------------------------------------------------------

type Case = { path: string; query: string; body: Body | null; idempotencyKey: string | null };

function caseFor(o: Op, f: Fixture): fc.Arbitrary<Case> {
  const params = pathParams(o.op);
  const path = fc.tuple(...params.map((p) => pathId(p.name, p.schema, f.ids))).map((values) => {
    let out = o.path;
    params.forEach((p, i) => (out = out.replace(`{${p.name}}`, values[i]!)));
    return out;
  });
  const writes = o.method !== "GET" && o.method !== "DELETE";
  const body: fc.Arbitrary<Body | null> = writes ? bodyFor(o) : fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: jsonBody(o) });
  const idem = fc.oneof({ weight: 5, arbitrary: fc.constant<string | null>(null) }, { weight: 1, arbitrary: fc.constantFrom("fuzz-key-1", "", " ", "x".repeat(300), "a\tb") });
  return fc.record({ path, query: queryFor(o), body, idempotencyKey: idem });
}

const f = await fixture();
const tables = await tablesOf();
const queries = await snapshotQueries(tables);
let state = await snapshot(tables);
let written = await writes();

const seen: Record<string, number> = {};
const snapshots = { count: 0, rechecked: 0, started: Date.now() };

type Answer = { status: number; label: string } | null;

/** Sends one case and checks its answer: below 500, and an error in the spec's shape with X-Request-Id. */
async function send(o: Op, c: Case): Promise<Answer> {
  const headers: Record<string, string> = { ...f.credential(o) };
  if (c.body?.contentType) headers["Content-Type"] = c.body.contentType;
  if (c.idempotencyKey !== null) headers["Idempotency-Key"] = c.idempotencyKey;
  // a GET carries no body (fetch itself refuses one)
  const body = o.method === "GET" ? undefined : c.body?.body;
  let res: Response;
  const label0 = `${o.method} ${c.path.slice(0, 200)}${c.query.slice(0, 100)} [${c.body?.label ?? "no body"}; ${c.body?.contentType ?? "no type"}]`;
  try {
    // an answer that never comes is a failure of its own, named by its case
    let timer: ReturnType<typeof setTimeout> | undefined;
    const silence = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("no answer within 30 s")), 30_000)));
    const request = new Request(`http://localhost${c.path}${c.query}`, { method: o.method, headers, body });
    res = await Promise.race([Promise.resolve(app.fetch(request, env, createExecutionContext())), silence]).finally(() => clearTimeout(timer));
  } catch (err) {
    // the client refused to send it (fetch rejects the header or URL): nothing reached the Worker
    if (err instanceof TypeError) return null;
    throw new Error(`${label0}: ${String(err)}`);
  }
  const text = await res.text();
  const label = `${o.method} ${c.path.slice(0, 200)}${c.query.slice(0, 100)} [${c.body?.label ?? "no body"}; ${c.body?.contentType ?? "no type"}${c.idempotencyKey !== null ? "; Idempotency-Key" : ""}] -> ${res.status} ${text.slice(0, 300)}`;
  seen[res.status] = (seen[res.status] ?? 0) + 1;
  expect(res.status, label).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.headers.get("x-request-id"), label).toBeTruthy();
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      expect.fail(`not JSON: ${label}`);
    }
    expect(typeof parsed.error, label).toBe("string");
    expect(Object.keys(parsed).filter((k) => !["error", "details", "code"].includes(k)), label).toEqual([]);
  }
  expect(({} as Record<string, unknown>).polluted, label).toBeUndefined();
  return { status: res.status, label };
}

/** The database now, compared only when something was written (by the requests or by background work). */
async function current(): Promise<string[]> {
  const n = await writes();
  if (n === written) return state;
  written = n;
  snapshots.count += 1;
  return snapshot(tables);
}

function assertUnchanged(before: string[], after: string[], refused: string[]) {
  const changed = changedTables(before, after);
  if (changed.length > 0) expect.fail(`refused requests changed the database (${changed.join(", ")}):\n${refused.join("\n")}`);
}

/**
 * Cases go in batches sent at once (the service answers them concurrently, as it would in production).
 * A batch that was all refused must leave the database as it was; in a batch where something was
 * accepted, the refused cases are sent again one at a time, each checked on its own.
 */
const BATCH = 8;

describe(`fuzz: ${totalCases.toLocaleString("en-US")} hostile requests across ${ops.length} operations, never a 500`, () => {
  for (const o of ops) {
    it(`${o.id}: ${perOp} hostile requests, each answered below 500 in the error shape, refusals change nothing`, async () => {
      const runs = Math.ceil(perOp / BATCH);
      let left = perOp;
      await fc.assert(
        fc.asyncProperty(fc.array(caseFor(o, f), { minLength: BATCH, maxLength: BATCH }), async (batch) => {
          const cases = batch.slice(0, Math.min(BATCH, Math.max(left, 1)));
          left -= cases.length;
          const before = state;
          const answers = await Promise.all(cases.map((c) => send(o, c)));
          const after = await current();
          state = after;
          const refused = answers.filter((a): a is NonNullable<Answer> => a !== null && a.status >= 400);
          if (refused.length === answers.filter((a) => a !== null).length) return assertUnchanged(before, after, refused.map((a) => a.label));
          for (const [i, c] of cases.entries()) {
            if (!answers[i] || answers[i]!.status < 400) continue;
            snapshots.rechecked += 1;
            const alone = state;
            const again = await send(o, c);
            const now = await current();
            state = now;
            if (again && again.status >= 400) assertUnchanged(alone, now, [again.label]);
          }
        }),
        { numRuns: runs, endOnFailure: true },
      );
    }, 180_000);
  }

  it(`ran ${totalCases.toLocaleString("en-US")} cases in all`, () => {
    const count = Object.values(seen).reduce((a, b) => a + b, 0);
    console.log(
      `fuzz: ${count} hostile requests sent to ${ops.length} operations (${snapshots.rechecked} refusals re-sent alone beside an accepted one); answers by status: ${JSON.stringify(seen)}; ${snapshots.count} database snapshots; ${Math.round((Date.now() - snapshots.started) / 1000)} s`,
    );
    expect(count).toBeGreaterThan(0);
  });
});
