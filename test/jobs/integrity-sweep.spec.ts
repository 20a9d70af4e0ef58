import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { continueIntegritySweep, INTEGRITY_SWEEP_CRON, startIntegritySweep, type SweepBatch } from "../../src/jobs/integrity-sweep";
import { call, newTenant } from "../helpers/api";
import { makePdf } from "../helpers/pdf";
import { completedEnvelope, compliance, vaultRecord } from "../helpers/vault";
import { allShardDbs, orgShardNumber, shardDb, shardDbOf } from "../helpers/shards";
import { jobContextOn } from "../helpers/context";
import { party, vaulted } from "../helpers/control";

/** The shard the test's vault records are on (its organization's): each shard keeps its own sweep cursor. */
let shard = 1;
const ctx = () => jobContextOn(shard);
const cursors = () => shardDb(shard);
const UNBOUNDED_BYTES = 1024 ** 4;

async function vaultedEnvelopes(n: number) {
  const t = await newTenant();
  shard = await orgShardNumber(t.orgId);
  const out = [];
  for (let i = 0; i < n; i++) {
    const e = await completedEnvelope(t.key);
    expect((await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} })).status).toBe(200);
    out.push({ ...e, record: (await vaultRecord(e.envelope_id))! });
  }
  return { t, envelopes: out };
}

async function sweepRows(envelopeId: string) {
  const { results } = await shardDbOf(envelopeId).prepare("SELECT matched FROM vault_integrity_checks WHERE envelope_id = ? AND source = 'sweep' ORDER BY checked_at, rowid")
    .bind(envelopeId)
    .all<{ matched: number }>();
  return results.map((r) => r.matched);
}

async function runCron(cron: string) {
  const c = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron }), env, c);
  await waitOnExecutionContext(c);
}

/** Continues until the cycle is complete; returns every batch run. */
async function finishCycle(first: SweepBatch, limits: { maxDocuments: number; maxBytes: number }) {
  const batches = [first];
  while (!batches[batches.length - 1]!.cycleCompleted) {
    expect(batches.length).toBeLessThan(500);
    batches.push(await continueIntegritySweep(ctx(), new Date(), limits));
  }
  return batches;
}

beforeEach(async () => {
  for (const db of allShardDbs()) await db.prepare("DELETE FROM job_cursors").run();
});

describe("weekly integrity sweep", () => {
  it("re-hashes every vaulted document in bounded batches, resuming across invocations, and re-issues a non-compliant certificate for a tampered one", async () => {
    const { t, envelopes } = await vaultedEnvelopes(5);
    const tampered = envelopes[2]!;
    await env.DOCS.put(tampered.record.authoritative_key, await makePdf({ text: "swapped after vaulting" }));

    const limits = { maxDocuments: 2, maxBytes: UNBOUNDED_BYTES };
    const batches = await finishCycle(await startIntegritySweep(ctx(), new Date(), limits), limits);
    expect(batches.length).toBeGreaterThanOrEqual(3); // 5 documents, 2 per invocation: never the whole vault at once
    for (const b of batches) expect(b.checked).toBeLessThanOrEqual(2);

    for (const e of envelopes) expect(await sweepRows(e.envelope_id)).toEqual([e === tampered ? 0 : 1]);
    const live = await compliance(t.key, tampered.envelope_id);
    expect(live.missing_requirements).toEqual(["unalterable"]);
    // the envelope's `compliant` says a certificate exists (spec part 2); the certificate says the record no longer complies
    expect((await call("GET", `/partner/envelopes/${tampered.envelope_id}/status`, { key: t.key })).body.data.compliant).toBe(true);
    const cert = await call("GET", `/partner/envelopes/${tampered.envelope_id}/vault/certificate`, { key: t.key });
    expect(cert.body.data.ucc_9105_compliance.compliant).toBe(false);
    expect(cert.body.data.ucc_9105_compliance.checks[2]).toMatchObject({ requirement: "unalterable", satisfied: false });
    const event = await shardDbOf(tampered.envelope_id).prepare("SELECT data FROM events WHERE envelope_id = ? AND type = 'vault.tamper_detected'").bind(tampered.envelope_id).first<{ data: string }>();
    expect(JSON.parse(event!.data)).toMatchObject({ detected_by: "sweep", expected_hash: tampered.hash });
    const audit = await shardDbOf(tampered.envelope_id).prepare("SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action = 'vault.tamper_detected'").bind(tampered.envelope_id).first<{ n: number }>();
    expect(audit!.n).toBe(1);
    for (const e of envelopes.filter((x) => x !== tampered)) {
      expect((await call("GET", `/partner/envelopes/${e.envelope_id}/status`, { key: t.key })).body.data.compliant).toBe(true);
    }

    // The cycle is done: the every-minute run finds nothing to do until next week's trigger.
    expect((await continueIntegritySweep(ctx(), new Date(), limits)).ran).toBe(false);
    const state = await cursors().prepare("SELECT cycle_completed_at, cursor, failures FROM job_cursors").first<{ cycle_completed_at: string | null; failures: number }>();
    expect(state!.cycle_completed_at).not.toBeNull();
    expect(state!.failures).toBeGreaterThanOrEqual(1);

    // Next week's cycle checks everything again; the tamper event is not raised a second time.
    await finishCycle(await startIntegritySweep(ctx(), new Date(), limits), limits);
    expect(await sweepRows(tampered.envelope_id)).toEqual([0, 0]);
    expect(await sweepRows(envelopes[0]!.envelope_id)).toEqual([1, 1]);
    const events = await shardDbOf(tampered.envelope_id).prepare("SELECT COUNT(*) AS n FROM events WHERE envelope_id = ? AND type = 'vault.tamper_detected'").bind(tampered.envelope_id).first<{ n: number }>();
    expect(events!.n).toBe(1);
  });

  it("passes over a destroyed record, whose objects are gone, without failing, stalling or reporting tamper, and checks the others", async () => {
    const t = await party("Dealer");
    shard = await orgShardNumber(t.orgId);
    const [gone, kept] = [await vaulted(t), await vaulted(t)];
    const vaultId = gone.vaultId;
    expect((await call("POST", `/partner/vault/${vaultId}/paid-off`, { key: t.key, body: { reference: "Payoff" } })).status).toBe(200);
    await shardDbOf(vaultId).prepare("UPDATE vault_records SET retain_until = ? WHERE id = ?").bind(new Date(Date.now() - 86_400_000).toISOString(), vaultId).run();
    const destroyed = await call("POST", `/partner/vault/${vaultId}/destroy`, { key: t.key });
    expect(destroyed.status, JSON.stringify(destroyed.body)).toBe(200);
    expect(await env.DOCS.head(gone.record.authoritative_key)).toBeNull();

    // the whole shard's cycle runs to its end: no run throws on the missing objects or stops short of them
    const limits = { maxDocuments: 5, maxBytes: UNBOUNDED_BYTES };
    await finishCycle(await startIntegritySweep(ctx(), new Date(), limits), limits);
    expect(await sweepRows(gone.e.envelope_id)).toEqual([]);
    expect(await sweepRows(kept.e.envelope_id)).toEqual([1]);
    const tamper = await shardDbOf(gone.e.envelope_id).prepare("SELECT COUNT(*) AS n FROM events WHERE envelope_id = ? AND type = 'vault.tamper_detected'").bind(gone.e.envelope_id).first<{ n: number }>();
    expect(tamper!.n).toBe(0);
  });

  it("bounds each invocation by bytes as well, always taking at least one document", async () => {
    const { envelopes } = await vaultedEnvelopes(3);
    const limits = { maxDocuments: 100, maxBytes: 1 };
    const batches = await finishCycle(await startIntegritySweep(ctx(), new Date(), limits), limits);
    for (const b of batches) expect(b.checked).toBeLessThanOrEqual(1);
    for (const e of envelopes) expect(await sweepRows(e.envelope_id)).toEqual([1]);
  });

  it("lets only one of two overlapping invocations walk the vault (lease)", async () => {
    await vaultedEnvelopes(2);
    const limits = { maxDocuments: 1, maxBytes: UNBOUNDED_BYTES };
    await cursors().prepare(
      "INSERT INTO job_cursors (job, cycle_started_at, cursor, updated_at) VALUES ('vault_integrity_sweep', ?, '', ?)",
    )
      .bind(new Date().toISOString(), new Date().toISOString())
      .run();
    const [a, b] = await Promise.all([continueIntegritySweep(ctx(), new Date(), limits), continueIntegritySweep(ctx(), new Date(), limits)]);
    expect([a.ran, b.ran].filter(Boolean)).toHaveLength(1);
  });

  it("continues an unfinished cycle at the next weekly trigger instead of restarting it", async () => {
    await vaultedEnvelopes(2);
    const limits = { maxDocuments: 1, maxBytes: UNBOUNDED_BYTES };
    await startIntegritySweep(ctx(), new Date(), limits);
    const before = await cursors().prepare("SELECT cycle_started_at, cursor FROM job_cursors").first<{ cycle_started_at: string; cursor: string }>();
    await startIntegritySweep(ctx(), new Date(Date.now() + 7 * 86_400_000), limits);
    const after = await cursors().prepare("SELECT cycle_started_at, cursor FROM job_cursors").first<{ cycle_started_at: string; cursor: string }>();
    expect(after!.cycle_started_at).toBe(before!.cycle_started_at);
    expect(after!.cursor > before!.cursor).toBe(true);
  });

  it("runs from the scheduled handler: the weekly cron starts a cycle, the every-minute cron continues it", async () => {
    const { envelopes } = await vaultedEnvelopes(1);
    await runCron(INTEGRITY_SWEEP_CRON);
    const state = await cursors().prepare("SELECT cycle_started_at, processed FROM job_cursors").first<{ processed: number }>();
    expect(state!.processed).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 100; i++) {
      const s = await cursors().prepare("SELECT cycle_completed_at FROM job_cursors").first<{ cycle_completed_at: string | null }>();
      if (s!.cycle_completed_at) break;
      await runCron("* * * * *");
    }
    expect(await sweepRows(envelopes[0]!.envelope_id)).toEqual([1]);
  });
});
