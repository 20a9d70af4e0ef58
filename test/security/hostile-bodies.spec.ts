import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { call, createEnvelope, newTenant } from "../helpers/api";
import { globalDb, orgShardDb, shardDbOf } from "../helpers/shards";

const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty"];

/** Any JSON a hostile or buggy client might send: wrong types, nulls, arrays, huge strings, prototype keys. */
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    fc.string(),
    fc.string({ minLength: 5_000, maxLength: 20_000 }),
    fc.constantFrom("", " ", "\u0000", "a@b", "x".repeat(300), "<script>", "lk_", "env_"),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...PROTO_KEYS)), tie("value"), { maxKeys: 4 }),
  ),
})).value;

const field = (name: string) => fc.oneof(hostileValue, fc.constant(undefined)).map((v) => [name, v] as const);

const hostileEnvelopeBody = fc.oneof(
  hostileValue,
  fc
    .tuple(
      field("envelope_name"),
      field("customer_email"),
      field("customer_name"),
      field("template_id"),
      field("external_id"),
      field("prefilled_data"),
      field("secured_party"),
      field("document_source"),
      field("expires_in_days"),
      fc.constantFrom(...PROTO_KEYS).map((k) => [k, { polluted: true }] as const),
    )
    .map((pairs) => {
      const body: Record<string, unknown> = {};
      for (const [k, v] of pairs) if (v !== undefined) Object.defineProperty(body, k, { value: v, enumerable: true, configurable: true, writable: true });
      return body;
    }),
);

/** The organization's rows: on its shard, plus its own chain's entries in the global database (when that is another database). */
async function counts(orgId: string) {
  const shard = await orgShardDb(orgId);
  const row = await shard.prepare(
    `SELECT (SELECT COUNT(*) FROM envelopes WHERE org_id = ?1) AS envelopes,
            (SELECT COUNT(*) FROM customers WHERE org_id = ?1) AS customers,
            (SELECT COUNT(*) FROM events WHERE org_id = ?1) AS events,
            (SELECT COUNT(*) FROM audit_log WHERE org_id = ?1) AS audit`,
  )
    .bind(orgId)
    .first<{ envelopes: number; customers: number; events: number; audit: number }>();
  const orgChain = (shard as D1Database) === globalDb ? 0 : (await globalDb.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE org_id = ?").bind(orgId).first<number>("n"))!;
  return { ...row!, audit: row!.audit + orgChain };
}

describe("hostile bodies", () => {
  it("POST /partner/envelopes never answers 500 and never writes partially", async () => {
    const t = await newTenant({ rpm: 1_000_000 });
    await fc.assert(
      fc.asyncProperty(hostileEnvelopeBody, async (body) => {
        const before = await counts(t.orgId);
        const res = await call("POST", "/partner/envelopes", { key: t.key, raw: JSON.stringify(body) ?? "null", headers: { "Content-Type": "application/json" } });
        expect([201, 400, 413, 422]).toContain(res.status);
        expect(typeof res.body.error === "string" || res.status === 201).toBe(true);
        const after = await counts(t.orgId);
        if (res.status === 201) {
          expect(after.envelopes).toBe(before.envelopes + 1);
          expect(after.events).toBe(before.events + 1);
          expect(after.audit).toBe(before.audit + 1);
          expect(Object.prototype.hasOwnProperty.call({}, "polluted")).toBe(false);
        } else {
          expect(after).toEqual(before);
          if (res.status === 422) {
            for (const issue of res.body.details) {
              expect(Object.keys(issue).sort()).toEqual(["code", "expected", "message", "path", "received"]);
              expect(Array.isArray(issue.path)).toBe(true);
            }
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it("POST /partner/envelopes/:id/void never answers 500 and leaves the envelope untouched on refusal", async () => {
    const t = await newTenant({ rpm: 1_000_000 });
    const e = await createEnvelope(t.key);
    await fc.assert(
      fc.asyncProperty(hostileValue, async (body) => {
        const res = await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: t.key, raw: JSON.stringify(body) ?? "null", headers: { "Content-Type": "application/json" } });
        expect(res.status).toBeLessThan(500);
        const row = await shardDbOf(e.envelope_id).prepare("SELECT status FROM envelopes WHERE id = ?").bind(e.envelope_id).first<{ status: string }>();
        if (res.status !== 200) expect(row!.status).toBe("pending");
        else await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = 'pending' WHERE id = ?").bind(e.envelope_id).run();
      }),
      { numRuns: 60 },
    );
  });

  it("query strings of any shape on the list route give 200 or 400, never 500", async () => {
    const t = await newTenant({ rpm: 1_000_000 });
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom("page", "limit", "status", "customer_id", "__proto__", "x"), fc.string({ maxLength: 300 }), { maxKeys: 5 }),
        async (query) => {
          const qs = new URLSearchParams(query as Record<string, string>).toString();
          const res = await call("GET", `/partner/envelopes?${qs}`, { key: t.key });
          expect([200, 400]).toContain(res.status);
        },
      ),
      { numRuns: 80 },
    );
  });
});
