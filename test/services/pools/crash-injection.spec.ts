import { beforeAll, describe, expect, it } from "vitest";
import { shardOf } from "../../../src/lib/shards";
import { RACE_FALLBACK, runPoolChunk } from "../../../src/services/pools/move-pool";
import { jobContext, jobContextOf } from "../../helpers/context";
import { tendPools } from "../../../src/services/pools/tend-pools";
import { call, callWith, operator } from "../../helpers/api";
import { party, vaulted, type Party } from "../../helpers/control";
import { eventsOf, moves, moveToEnd, offeredPool, poolStub, vaultedRecords } from "../../helpers/pools";
import type { Env } from "../../../src/env";
import { env } from "cloudflare:test";
import { allShardDbs } from "../../helpers/shards";
import type { PoolTransfer } from "../../../src/jobs/pool-transfer";
import { faultStats } from "../../../src/lib/faults";

/**
 * An accepted pool's Durable Object is aborted at each of its checkpoints (BULK_TEST_HOOKS, tests only),
 * twice: as a record is read, with a shard's chunk planned but not committed, after the chunk's batch
 * (per record, and once for the chunk), before the pool is marked completed, after. The run resumes
 * from D1 and every record moves exactly once (one chain entry naming the pool), the pool completes,
 * and each party receives exactly one `vault.pool_accepted`. The records sit on both shards and the two
 * organizations on different ones; the pool goes back and forth between them, one pool per checkpoint.
 */
const STEPS = ["before_record", "before_chunk", "record_moved", "chunk_moved", "before_complete", "completed"];
// (twice each, but `completed`: once it has passed, the pool is settled and no run reaches it again)

describe("pool acceptance: each record moves exactly once, whatever crashes", () => {
  let orgs: [Party, Party];
  let records: { vaultId: string; envelopeId: string }[];
  let holder = 0;

  beforeAll(async () => {
    orgs = [await party("Pool Seller"), await party("Pool Buyer")];
    await operator("PATCH", `/orgs/${orgs[0].orgId}`, { current_shard_id: 1 });
    await operator("PATCH", `/orgs/${orgs[1].orgId}`, { current_shard_id: 2 });
    records = [];
    for (let i = 0; i < 3; i++) {
      if (i === 1) await operator("PATCH", `/orgs/${orgs[0].orgId}`, { current_shard_id: 2 });
      const v = await vaulted(orgs[0]);
      records.push({ vaultId: v.vaultId, envelopeId: v.e.envelope_id });
    }
    expect(new Set(records.map((r) => shardOf(r.vaultId)))).toEqual(new Set([1, 2]));
  }, 300_000);

  it.each(STEPS)("resumes after a crash at %s", async (step) => {
    const [from, to] = [orgs[holder]!, orgs[1 - holder]!];
    const before = await Promise.all(records.map((r) => moves(r.envelopeId)));
    const pool = await offeredPool(from, to, records.map((r) => r.vaultId));
    // after `completed` the pool is settled: the resumed run ends before reaching it again, so it is armed once
    await poolStub(pool.pool_id).armCrashes(step === "completed" ? [step] : [step, step]);
    const accepted = await call("POST", `/partner/vault/pools/${pool.pool_id}/accept`, { key: to.key });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    await moveToEnd(pool.pool_id);
    expect((await poolStub(pool.pool_id).state()).crashes).toEqual([]);
    holder = 1 - holder;

    for (const [i, r] of records.entries()) {
      const after = await moves(r.envelopeId);
      expect(after.length - before[i]!.length).toBe(1);
      expect(after.at(-1)).toEqual({ pool_id: pool.pool_id, to_org_id: to.orgId });
      const rec = (await call("GET", `/partner/vault/${r.vaultId}`, { key: to.key })).body.data;
      expect(rec.controller.org_id).toBe(to.orgId);
      expect(rec.pending_transfer).toBeNull();
    }
    const read = (await call("GET", `/partner/vault/pools/${pool.pool_id}`, { key: from.key })).body.data;
    expect(read.progress).toMatchObject({ moved: 3, remaining: 0 });
    expect(read.progress.completed_at).not.toBeNull();
    for (const org of [from, to]) {
      const events = (await eventsOf("vault.pool_accepted", org.orgId, allShardDbs())).filter((e) => e.pool_id === pool.pool_id);
      expect(events).toHaveLength(1);
    }
  }, 300_000);
});

/** The pool accepted with its Durable Object stood in for by one that never runs: the test runs the chunks itself. */
async function acceptWithoutItsObject(poolId: string, key: string) {
  const idle = { idFromName: (name: string) => env.POOL_TRANSFER!.idFromName(name), get: () => ({ start: async () => {} }) } as unknown as Env["POOL_TRANSFER"];
  const accepted = await callWith({ ...(env as Env), POOL_TRANSFER: idle }, "POST", `/partner/vault/pools/${poolId}/accept`, { key });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
}

describe("pool acceptance: two runs of one pool at once", () => {
  it("move each record once: the run whose batch loses the race moves record by record and finds them moved", async () => {
    const [from, to] = [await party("Pool Racer Seller"), await party("Pool Racer Buyer")];
    const records = await vaultedRecords(from, 3);
    const pool = await offeredPool(from, to, records.map((r) => r.vaultId));
    // the pool's Durable Object stood in for: the test runs two chunks itself, at once
    await acceptWithoutItsObject(pool.pool_id, to.key);
    const run = () => runPoolChunk(jobContext(), { poolId: pool.pool_id, hooks: { checkpoint: () => {} } });
    expect(await Promise.all([run(), run()])).toEqual(["done", "done"]);
    for (const r of records) expect(await moves(r.envelopeId)).toEqual([{ pool_id: pool.pool_id, to_org_id: to.orgId }]);
    const read = (await call("GET", `/partner/vault/pools/${pool.pool_id}`, { key: from.key })).body.data;
    expect(read.progress).toMatchObject({ moved: 3, remaining: 0 });
    for (const org of [from, to]) {
      const events = (await eventsOf("vault.pool_accepted", org.orgId, allShardDbs())).filter((e) => e.pool_id === pool.pool_id);
      expect(events).toHaveLength(1);
    }
  }, 300_000);

  it(`move each record once: a losing run with more than ${RACE_FALLBACK} records moves ${RACE_FALLBACK} one by one and leaves the rest for the next chunk`, async () => {
    const [from, to] = [await party("Pool Racer Seller 2"), await party("Pool Racer Buyer 2")];
    const records = await vaultedRecords(from, RACE_FALLBACK + 2);
    const pool = await offeredPool(from, to, records.map((r) => r.vaultId));
    await acceptWithoutItsObject(pool.pool_id, to.key);
    const run = () => runPoolChunk(jobContext(), { poolId: pool.pool_id, hooks: { checkpoint: () => {} } });
    // both read the same holds; the batch committed second is refused whole, and its run asks for another chunk
    expect((await Promise.all([run(), run()])).sort()).toEqual(["done", "more"]);
    expect(await run()).toBe("done");
    for (const r of records) expect(await moves(r.envelopeId)).toEqual([{ pool_id: pool.pool_id, to_org_id: to.orgId }]);
    const read = (await call("GET", `/partner/vault/pools/${pool.pool_id}`, { key: from.key })).body.data;
    expect(read.progress).toMatchObject({ moved: RACE_FALLBACK + 2, remaining: 0 });
    for (const org of [from, to]) {
      const events = (await eventsOf("vault.pool_accepted", org.orgId, allShardDbs())).filter((e) => e.pool_id === pool.pool_id);
      expect(events).toHaveLength(1);
    }
  }, 300_000);

  it("complete the pool once: two runs that both find every record moved send one vault.pool_accepted to each party", async () => {
    const [from, to] = [await party("Pool Finisher Seller"), await party("Pool Finisher Buyer")];
    const records = await vaultedRecords(from, 2);
    const pool = await offeredPool(from, to, records.map((r) => r.vaultId));
    await acceptWithoutItsObject(pool.pool_id, to.key);
    // a first run moves every record and stops just before completing the pool
    const stopBeforeComplete = (step: string) => {
      if (step === "before_complete") throw new Error("stopped before completing");
    };
    await expect(runPoolChunk(jobContext(), { poolId: pool.pool_id, hooks: { checkpoint: stopBeforeComplete } })).rejects.toThrow("stopped before completing");
    for (const r of records) expect(await moves(r.envelopeId)).toEqual([{ pool_id: pool.pool_id, to_org_id: to.orgId }]);
    // two runs then both read the pool still incomplete, and both complete it
    const run = () => runPoolChunk(jobContext(), { poolId: pool.pool_id, hooks: { checkpoint: () => {} } });
    expect(await Promise.all([run(), run()])).toEqual(["done", "done"]);
    const read = (await call("GET", `/partner/vault/pools/${pool.pool_id}`, { key: to.key })).body.data;
    expect(read.progress.completed_at).not.toBeNull();
    for (const org of [from, to]) {
      const events = (await eventsOf("vault.pool_accepted", org.orgId, allShardDbs())).filter((e) => e.pool_id === pool.pool_id);
      expect(events, `${org.orgId} receives the pool's acceptance once`).toHaveLength(1);
    }
  }, 300_000);
});

describe("pool acceptance under injected faults", () => {
  it("D1 errors, commits that time out after landing and R2 errors in the object's chunks: each record moves once, the pool completes, one event per party", async () => {
    const [from, to] = [await party("Pool Faulted Seller"), await party("Pool Faulted Buyer")];
    const records = await vaultedRecords(from, 4);
    const pool = await offeredPool(from, to, records.map((r) => r.vaultId));
    // the Worker's class (src/jobs/pool-transfer.ts) behind the binding, whose chunks go through the fault layer
    // (every chunk's first commit lands and then times out: a chunk now makes few D1 calls, so the errors alone may miss a run)
    await (poolStub(pool.pool_id) as unknown as DurableObjectStub<PoolTransfer>).armFaults("d1.error=0.06,d1.batch.timeout=1/1,r2.error=0.05");
    const before = Object.values(faultStats().injected).reduce((a, b) => a + b, 0);
    const accepted = await call("POST", `/partner/vault/pools/${pool.pool_id}/accept`, { key: to.key });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    // five chunks failing in a row end the run; the minute job starts it again, as deployed (rare at these rates)
    for (let restart = 0; ; restart++) {
      try {
        await moveToEnd(pool.pool_id, 200);
        break;
      } catch (err) {
        if (restart === 3) throw err;
        await tendPools(jobContextOf(pool.pool_id));
      }
    }
    expect(Object.values(faultStats().injected).reduce((a, b) => a + b, 0), "faults were injected into the chunks").toBeGreaterThan(before);
    for (const r of records) expect(await moves(r.envelopeId)).toEqual([{ pool_id: pool.pool_id, to_org_id: to.orgId }]);
    const read = (await call("GET", `/partner/vault/pools/${pool.pool_id}`, { key: from.key })).body.data;
    expect(read.progress).toMatchObject({ moved: 4, remaining: 0 });
    for (const org of [from, to]) {
      const events = (await eventsOf("vault.pool_accepted", org.orgId, allShardDbs())).filter((e) => e.pool_id === pool.pool_id);
      expect(events).toHaveLength(1);
    }
  }, 300_000);
});
