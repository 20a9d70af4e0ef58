import { describe, expect, it } from "vitest";
import { IDEMPOTENCY_RETENTION_MS, pruneIdempotency, pruneKeyedCreateMarks } from "../../src/jobs/prune-idempotency";
import { call, envelopeBody, newTenant } from "../helpers/api";
import { jobContext, jobContextOf } from "../helpers/context";
import { globalDb, shardDbOf } from "../helpers/shards";

const HOUR = 3_600_000;

/** An Idempotency-Key record as the middleware stores it, created at `at`. */
const insertRecord = (keyId: string, orgId: string, key: string, at: Date) =>
  globalDb
    .prepare(
      "INSERT INTO idempotency_keys (key_id, idempotency_key, org_id, request_hash, state, response_status, response_body, created_at) VALUES (?, ?, ?, 'h', 'done', 201, '{}', ?)",
    )
    .bind(keyId, key, orgId, at.toISOString())
    .run();

const keysOf = async (keyId: string) =>
  (await globalDb.prepare("SELECT idempotency_key FROM idempotency_keys WHERE key_id = ? ORDER BY idempotency_key").bind(keyId).all<{ idempotency_key: string }>()).results.map(
    (r) => r.idempotency_key,
  );

describe("the idempotency prune (global, every minute)", () => {
  it("deletes records past the 24 h window and keeps the day's", async () => {
    const t = await newTenant();
    const now = new Date();
    await insertRecord(t.keyId, t.orgId, "old-2d", new Date(now.getTime() - 48 * HOUR));
    await insertRecord(t.keyId, t.orgId, "old-25h", new Date(now.getTime() - 25 * HOUR));
    await insertRecord(t.keyId, t.orgId, "fresh-23h", new Date(now.getTime() - 23 * HOUR));
    await insertRecord(t.keyId, t.orgId, "fresh-now", now);
    const result = await pruneIdempotency(jobContext(), now);
    expect(result.deleted).toBeGreaterThanOrEqual(2);
    expect(await keysOf(t.keyId)).toEqual(["fresh-23h", "fresh-now"]);
  });

  it("a retry inside the window still gets the stored response after a prune", async () => {
    const t = await newTenant();
    const body = envelopeBody();
    const first = await call("POST", "/partner/envelopes", { key: t.key, body, headers: { "Idempotency-Key": "prune-replay" } });
    expect(first.status).toBe(201);
    await pruneIdempotency(jobContext(), new Date());
    const again = await call("POST", "/partner/envelopes", { key: t.key, body, headers: { "Idempotency-Key": "prune-replay" } });
    expect(again.status).toBe(201);
    expect(again.body.data.envelope_id).toBe(first.body.data.envelope_id);
    // a day later the record is gone
    await pruneIdempotency(jobContext(), new Date(Date.now() + IDEMPOTENCY_RETENTION_MS + HOUR));
    expect(await keysOf(t.keyId)).toEqual([]);
  });

  it("works in bounded batches: one run deletes at most 5,000, the next run the rest, oldest first", async () => {
    const t = await newTenant();
    const base = Date.now() - 30 * 24 * HOUR;
    const total = 5_200;
    const rows = Array.from({ length: total }, (_, i) => [t.keyId, `bulk-${String(i).padStart(5, "0")}`, t.orgId, new Date(base + i * 1000).toISOString()]);
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      await globalDb
        .prepare(
          `INSERT INTO idempotency_keys (key_id, idempotency_key, org_id, request_hash, state, created_at)
           SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), 'h', 'done', json_extract(value, '$[3]') FROM json_each(?)`,
        )
        .bind(JSON.stringify(chunk))
        .run();
    }
    const first = await pruneIdempotency(jobContext(), new Date());
    expect(first.deleted).toBe(5_000);
    const left = await keysOf(t.keyId);
    expect(left).toHaveLength(total - 5_000);
    // oldest went first
    expect(left[0]).toBe("bulk-05000");
    const second = await pruneIdempotency(jobContext(), new Date());
    expect(second.deleted).toBeGreaterThanOrEqual(total - 5_000);
    expect(await keysOf(t.keyId)).toEqual([]);
  });
});

describe("the keyed-create marks' prune (per shard, every minute)", () => {
  it("a keyed create leaves one mark on its envelope's shard, kept for the day and deleted after it", async () => {
    const t = await newTenant();
    const created = await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody(), headers: { "Idempotency-Key": "mark-prune" } });
    expect(created.status).toBe(201);
    const envelopeId = created.body.data.envelope_id as string;
    const marks = () => shardDbOf(envelopeId).prepare("SELECT record_id FROM idempotent_creates WHERE org_id = ?").bind(t.orgId).all<{ record_id: string }>().then((r) => r.results.map((m) => m.record_id));
    expect(await marks()).toEqual([envelopeId]);
    // an unkeyed create leaves none
    expect((await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody() })).status).toBe(201);
    expect(await marks()).toEqual([envelopeId]);
    await pruneKeyedCreateMarks(jobContextOf(envelopeId), new Date());
    expect(await marks()).toEqual([envelopeId]);
    await pruneKeyedCreateMarks(jobContextOf(envelopeId), new Date(Date.now() + IDEMPOTENCY_RETENTION_MS + HOUR));
    expect(await marks()).toEqual([]);
  });
});
