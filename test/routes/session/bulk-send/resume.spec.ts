import { describe, expect, it } from "vitest";
import { resumeBulkBatches } from "../../../../src/jobs/resume-bulk-batches";
import { batchRow, bulkStub, bulkTenant, envelopesPerClient, readyBatch, runToEnd } from "../../../helpers/bulk";
import { jobContextOf } from "../../../helpers/context";
import { shardDbOf } from "../../../helpers/shards";

const MINUTE = 60_000;

/** What a submit leaves when the Worker dies after its D1 commit and before the workflow object starts. */
async function submittedButNeverStarted(batchId: string, minutesAgo: number) {
  const at = new Date(Date.now() - minutesAgo * MINUTE).toISOString();
  await shardDbOf(batchId).prepare("UPDATE bulk_batches SET status = 'running', submitted_at = ?, updated_at = ? WHERE id = ?").bind(at, at, batchId).run();
}

describe("bulk send: a batch nobody is sending is picked up by the minute cron", () => {
  it("a batch left running without its workflow is resumed, and every client gets exactly one envelope", async () => {
    const t = await bulkTenant();
    const { batchId, customers } = await readyBatch(t, { n: 4 });
    await submittedButNeverStarted(batchId, 10);
    expect((await bulkStub(batchId).state()).run).toBeNull();

    const { resumed } = await resumeBulkBatches(jobContextOf(batchId), new Date());
    expect(resumed).toContain(batchId);
    const settled = await runToEnd(batchId);
    expect(settled).toMatchObject({ status: "completed", sent_count: 4, failed_count: 0 });
    const perClient = await envelopesPerClient(batchId);
    expect([...perClient.keys()].sort()).toEqual([...customers].sort());
    expect([...perClient.values()].every((n) => n === 1)).toBe(true);

    // a second pass finds nothing to do: the batch is settled
    expect((await resumeBulkBatches(jobContextOf(batchId), new Date())).resumed).not.toContain(batchId);
  });

  it("a batch that moved in the last minutes and a draft are left alone", async () => {
    const t = await bulkTenant("Lakeside Motors");
    const moving = await readyBatch(t, { n: 1 });
    await submittedButNeverStarted(moving.batchId, 1);
    const draft = await t.as("POST", "/bulk-send", { name: "Draft only", document_source: "new" });
    expect(draft.status).toBe(201);

    const { resumed } = await resumeBulkBatches(jobContextOf(moving.batchId), new Date());
    expect(resumed).not.toContain(moving.batchId);
    expect(resumed).not.toContain(draft.body.data.batch_id);
    expect((await batchRow(moving.batchId))!.status).toBe("running");
    expect((await bulkStub(moving.batchId).state()).run).toBeNull();
  });
});
