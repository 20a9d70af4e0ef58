import { describe, expect, it } from "vitest";
import { shardOf } from "../../src/lib/shards";
import { operator } from "../helpers/api";
import { batchRow, bulkTenant, envelopesPerClient, readyBatch, runToEnd, seedCustomers, type BulkTenant } from "../helpers/bulk";
import { globalDb, shardDb } from "../helpers/shards";
import { templateWithRoles } from "../helpers/signing";

/**
 * Bulk send across shards (docs/decisions/shards.md 1 and 2): a batch lives on the organization's
 * current shard at its creation, and its items, reserved envelope keys, envelopes, master template and
 * its own audit chain stay there, even if the organization moves mid-run. Needs the test pool to bind
 * SHARD_2 as a database of its own.
 */

async function moveTo(t: BulkTenant, shard: number) {
  const open = await operator("PATCH", `/shards/${shard}`, { state: "open" });
  expect(open.status, `the test pool binds SHARD_${shard}: ${JSON.stringify(open.body)}`).toBe(200);
  const moved = await operator("PATCH", `/orgs/${t.orgId}`, { current_shard_id: shard });
  expect(moved.status, JSON.stringify(moved.body)).toBe(200);
}

const count = async (db: D1Database, sql: string, ...binds: unknown[]) => (await db.prepare(sql).bind(...binds).first<number>("n")) ?? 0;

/** Every row of the batch, where it is and where it is not. */
async function assertOnShard2(batchId: string, masterId: string, orgId: string) {
  const two = shardDb(2);
  expect(shardOf(batchId)).toBe(2);
  expect(shardOf(masterId)).toBe(2);
  expect(await count(two, "SELECT COUNT(*) AS n FROM bulk_batches WHERE id = ?", batchId)).toBe(1);
  expect(await count(globalDb, "SELECT COUNT(*) AS n FROM bulk_batches WHERE id = ?", batchId)).toBe(0);
  expect(await count(shardDb(1), "SELECT COUNT(*) AS n FROM bulk_items WHERE batch_id = ?", batchId)).toBe(0);
  // the master (the builder working copy) is a row of the batch's shard, not of the global database
  expect(await count(two, "SELECT COUNT(*) AS n FROM templates WHERE id = ? AND origin = 'builder'", masterId)).toBe(1);
  expect(await count(globalDb, "SELECT COUNT(*) AS n FROM templates WHERE id = ?", masterId)).toBe(0);
  // the batch's audit entries are on its own chain on its shard, none on the organization's chain
  const { results } = await two.prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(batchId).all<{ action: string }>();
  expect(results.map((r) => r.action)).toEqual(expect.arrayContaining(["bulk_batch.created", "bulk_batch.updated", "bulk_batch.items_set"]));
  expect(await count(globalDb, "SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action LIKE 'bulk_batch.%'", orgId)).toBe(0);
}

describe("a bulk batch on shard 2", () => {
  it("created while the organization is on shard 2, runs entirely on shard 2", async () => {
    const t = await bulkTenant();
    await moveTo(t, 2);
    const ready = await readyBatch(t, { n: 3 });
    expect(ready.items).toMatchObject({ added: 3, rejected: [] });
    await assertOnShard2(ready.batchId, ready.session.template_id, t.orgId);

    const submitted = await t.as("POST", `/bulk-send/${ready.batchId}/submit`);
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    const done = await runToEnd(ready.batchId);
    expect(done).toMatchObject({ status: "completed", sent_count: 3, failed_count: 0 });

    // every client's envelope exactly once, each on shard 2 under an id naming it
    const perClient = await envelopesPerClient(ready.batchId);
    expect([...perClient.values()]).toEqual([1, 1, 1]);
    const { results } = await shardDb(2)
      .prepare("SELECT id, status FROM envelopes WHERE json_extract(metadata, '$.bulk_send.batch_id') = ?")
      .bind(ready.batchId)
      .all<{ id: string; status: string }>();
    expect(results).toHaveLength(3);
    for (const e of results) {
      expect(shardOf(e.id)).toBe(2);
      expect(e.status).toBe("sent");
    }
    expect(await count(globalDb, "SELECT COUNT(*) AS n FROM envelopes WHERE org_id = ?", t.orgId)).toBe(0);
    expect(await count(shardDb(1), "SELECT COUNT(*) AS n FROM envelopes WHERE org_id = ?", t.orgId)).toBe(0);
    const finished = await count(shardDb(2), "SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action = 'bulk_batch.finished'", ready.batchId);
    expect(finished).toBe(1);

    // the console reads the progress from the batch's shard
    const progress = await t.as("GET", `/bulk-send/${ready.batchId}`);
    expect(progress.status).toBe(200);
    expect(progress.body.data.batch).toMatchObject({ batch_id: ready.batchId, status: "completed", sent_count: 3 });
  });

  it("keeps the batch on its shard when the organization moves mid-batch", async () => {
    const t = await bulkTenant();
    await moveTo(t, 2);
    const templateId = await templateWithRoles(t.key, ["client"]);
    const created = await t.as("POST", "/bulk-send", { name: "Moving dealer", document_source: "template", source_template_id: templateId });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const batchId = created.body.data.batch_id as string;
    expect(shardOf(batchId)).toBe(2);
    // the organization moves back to shard 1 right after: the master, the items and the clients still go to shard 2
    await moveTo(t, 1);
    const session = await t.as("POST", "/esign/builder-session", { batch_id: batchId });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    expect(shardOf(session.body.data.template_id)).toBe(2);
    const clients = await seedCustomers(t.orgId, 2); // recorded on shard 1, the organization's current shard now
    const items = await t.as("POST", `/bulk-send/${batchId}/items`, { customer_ids: clients });
    expect(items.body.data).toMatchObject({ added: 2, rejected: [] });
    const ready = { batchId, session: session.body.data };

    const submitted = await t.as("POST", `/bulk-send/${ready.batchId}/submit`);
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
    const done = await runToEnd(ready.batchId);
    expect(done).toMatchObject({ status: "completed", sent_count: 2 });
    await assertOnShard2(ready.batchId, ready.session.template_id, t.orgId);
    expect(await count(shardDb(2), "SELECT COUNT(*) AS n FROM envelopes WHERE json_extract(metadata, '$.bulk_send.batch_id') = ?", ready.batchId)).toBe(2);
    expect(await count(shardDb(1), "SELECT COUNT(*) AS n FROM envelopes WHERE org_id = ?", t.orgId)).toBe(0);

    // a new batch now goes to the organization's current shard, 1
    const next = await t.as("POST", "/bulk-send", { name: "After the move", document_source: "new" });
    expect(next.status, JSON.stringify(next.body)).toBe(201);
    expect(shardOf(next.body.data.batch_id)).toBe(1);
    expect((await batchRow(next.body.data.batch_id))?.status).toBe("draft");
  });

  it("copies clients from the organization's other shard into the batch's shard, with the same ids", async () => {
    const t = await bulkTenant();
    // clients recorded while the organization was on shard 1
    const before = await seedCustomers(t.orgId, 2);
    expect(before.every((id) => shardOf(id) === 1)).toBe(true);
    await moveTo(t, 2);
    const ready = await readyBatch(t, { customers: before });
    expect(ready.items).toMatchObject({ added: 2, rejected: [] });
    for (const id of before) {
      expect(await count(shardDb(2), "SELECT COUNT(*) AS n FROM customers WHERE id = ? AND org_id = ?", id, t.orgId)).toBe(1);
    }
    await t.as("POST", `/bulk-send/${ready.batchId}/submit`);
    expect(await runToEnd(ready.batchId)).toMatchObject({ status: "completed", sent_count: 2 });
    expect(new Set((await envelopesPerClient(ready.batchId)).keys())).toEqual(new Set(before));
  });
});
