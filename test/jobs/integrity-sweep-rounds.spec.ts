import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { PDFDocument } from "pdf-lib";
import { beforeEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { continueIntegritySweep, DEFAULT_SWEEP_LIMITS, INTEGRITY_SWEEP_CRON, SWEEP_CONCURRENCY } from "../../src/jobs/integrity-sweep";
import { shardOf } from "../../src/lib/shards";
import { assessIntegrityCheck, observeAuthoritative, recordIntegrityCheck, recordIntegrityChecks } from "../../src/services/vault/integrity";
import type { VaultRecordRow } from "../../src/services/vault/repository";
import { call, newTenant } from "../helpers/api";
import { sha256Hex } from "../helpers/pdf";
import { completedEnvelope, compliance, vaultRecord } from "../helpers/vault";
import { jobContextOn } from "../helpers/context";
import { allShardDbs, shardDb, shardDbOf } from "../helpers/shards";

/** The shard of the test's latest vault record (its organization's): the sweep, its cursor and its counts are per shard. */
let shard = 1;
const ctx = () => jobContextOn(shard);
const onShard = () => shardDb(shard);

async function vault(key: string, pdf?: Uint8Array) {
  const e = await completedEnvelope(key, {}, pdf);
  shard = shardOf(e.envelope_id);
  expect((await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key, body: {} })).status).toBe(200);
  return { ...e, record: (await vaultRecord(e.envelope_id)) as unknown as VaultRecordRow };
}

async function sweepChecks(envelopeId: string) {
  const { results } = await shardDbOf(envelopeId).prepare(
    "SELECT matched, observed_hash, observed_size_bytes FROM vault_integrity_checks WHERE envelope_id = ? AND source = 'sweep' ORDER BY checked_at, rowid",
  )
    .bind(envelopeId)
    .all<{ matched: number; observed_hash: string | null; observed_size_bytes: number | null }>();
  return results;
}

const count = async (sql: string, ...args: unknown[]) => (await onShard().prepare(sql).bind(...args).first<{ n: number }>())!.n;

async function runCron(cron: string) {
  const c = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron }), env, c);
  await waitOnExecutionContext(c);
}

/** The weekly trigger, then the every-minute runs until the cycle is done. */
async function sweepWholeVault() {
  await runCron(INTEGRITY_SWEEP_CRON);
  for (let i = 0; i < 100; i++) {
    const state = await onShard().prepare("SELECT cycle_completed_at FROM job_cursors").first<{ cycle_completed_at: string | null }>();
    if (state?.cycle_completed_at) return;
    await continueIntegritySweep(ctx(), new Date());
  }
  throw new Error("the sweep did not finish its cycle");
}

/** A valid PDF of about `bytes` bytes: one page whose image is incompressible pseudo-random data. */
async function bigPdf(bytes: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const pixels = new Uint8Array(bytes);
  let x = 0x9e3779b9;
  for (let i = 0; i < pixels.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    pixels[i] = x & 0xff;
  }
  const width = 1000;
  const image = doc.context.register(
    doc.context.stream(pixels.subarray(0, width * Math.floor(bytes / width)), {
      Type: "XObject",
      Subtype: "Image",
      Width: width,
      Height: Math.floor(bytes / width),
      ColorSpace: "DeviceGray",
      BitsPerComponent: 8,
    }),
  );
  page.node.newXObject("Scan", image);
  return doc.save({ useObjectStreams: false });
}

beforeEach(async () => {
  for (const db of allShardDbs()) await db.prepare("DELETE FROM job_cursors").run();
});

describe("integrity sweep, many copies per run", () => {
  it("checks and records every copy of a 16-document vault in one weekly run, and still catches the one tampered copy among them", async () => {
    const t = await newTenant();
    const docs = [];
    for (let i = 0; i < 16; i++) docs.push(await vault(t.key));
    expect(docs.length).toBeGreaterThan(SWEEP_CONCURRENCY * 3);
    const tampered = docs[9]!;
    const original = await (await env.DOCS.get(tampered.record.authoritative_key))!.bytes();
    const bytes = original.slice();
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0x01; // one bit of the last byte: the whole object must be hashed to see it
    await env.DOCS.put(tampered.record.authoritative_key, bytes);
    const vaulted = await count("SELECT COUNT(*) AS n FROM vault_records");
    expect(vaulted).toBeLessThanOrEqual(DEFAULT_SWEEP_LIMITS.maxDocuments); // the whole vault fits one run (this file's storage is shared by its tests)
    const certificatesBefore = await count("SELECT COUNT(*) AS n FROM vault_certificates");

    await runCron(INTEGRITY_SWEEP_CRON);

    // one run: every copy in the vault (16 here, within one invocation's 25) checked and the cycle done
    const state = await onShard().prepare("SELECT processed, failures, cycle_completed_at FROM job_cursors").first<{ processed: number; failures: number; cycle_completed_at: string | null }>();
    expect(state).toMatchObject({ processed: vaulted, failures: 1 });
    expect(state!.cycle_completed_at).not.toBeNull();
    for (const d of docs) {
      const rows = await sweepChecks(d.envelope_id);
      expect(rows, d.envelope_id).toHaveLength(1);
      expect(rows[0]!.matched).toBe(d === tampered ? 0 : 1);
      expect(rows[0]!.observed_size_bytes).toBe(d.record.size_bytes);
    }
    expect(await count("SELECT COUNT(*) AS n FROM events WHERE type = 'vault.tamper_detected' AND envelope_id = ?", tampered.envelope_id)).toBe(1);
    expect(await count("SELECT COUNT(*) AS n FROM events WHERE type = 'vault.tamper_detected'")).toBe(1);
    expect(await count("SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action = 'vault.tamper_detected'", tampered.envelope_id)).toBe(1);
    expect((await compliance(t.key, tampered.envelope_id)).missing_requirements).toEqual(["unalterable"]);
    expect((await compliance(t.key, docs[0]!.envelope_id)).missing_requirements).toEqual([]);
    // only the tampered envelope got a new certificate; the intact ones were recorded and nothing else
    expect(await count("SELECT COUNT(*) AS n FROM vault_certificates")).toBe(certificatesBefore + 1);

    // restored: the next cycle records it intact again, with the restoring audit entry
    await env.DOCS.put(tampered.record.authoritative_key, original);
    await runCron(INTEGRITY_SWEEP_CRON);
    expect((await sweepChecks(tampered.envelope_id)).map((r) => r.matched)).toEqual([0, 1]);
    expect(await count("SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action = 'vault.integrity_restored'", tampered.envelope_id)).toBe(1);
    expect((await sweepChecks(docs[0]!.envelope_id)).map((r) => r.matched)).toEqual([1, 1]);
    expect(await count("SELECT COUNT(*) AS n FROM events WHERE type = 'vault.tamper_detected'")).toBe(1);
  });

  it("hashes a multi-megabyte authoritative copy through the streaming path to its true SHA-256, and sees a change in its last byte", async () => {
    const t = await newTenant();
    const pdf = await bigPdf(6 * 1024 * 1024 + 12_345); // not a whole number of the digest's slices
    expect(pdf.length).toBeGreaterThan(6 * 1024 * 1024);
    const d = await vault(t.key, pdf);
    const stored = new Uint8Array(await (await env.DOCS.get(d.record.authoritative_key))!.arrayBuffer());
    const known = await sha256Hex(stored); // crypto.subtle.digest of the whole object in memory
    expect(d.record.document_hash).toBe(known);

    const observed = await observeAuthoritative(env.DOCS, d.record);
    expect(observed).toMatchObject({ hash: known, size: stored.length });

    await sweepWholeVault();
    expect(await sweepChecks(d.envelope_id)).toEqual([{ matched: 1, observed_hash: known, observed_size_bytes: stored.length }]);

    stored[stored.length - 1] = stored[stored.length - 1]! ^ 0x80;
    await env.DOCS.put(d.record.authoritative_key, stored);
    await sweepWholeVault();
    const rows = await sweepChecks(d.envelope_id);
    expect(rows[1]).toEqual({ matched: 0, observed_hash: await sha256Hex(stored), observed_size_bytes: stored.length });
    expect((await compliance(t.key, d.envelope_id)).missing_requirements).toEqual(["unalterable"]);
  });

  it("re-judges a check whose envelope changed between hashing and recording: a tamper recorded meanwhile is followed by a restore, not a silent row", async () => {
    const t = await newTenant();
    const d = await vault(t.key);
    // The sweep hashed the intact copy and judged it quiet (same outcome as at vaulting)...
    const assessed = await assessIntegrityCheck(ctx(), { record: d.record, observed: await observeAuthoritative(env.DOCS, d.record) });
    expect(assessed).toMatchObject({ matched: true, quiet: true });
    // ...then, before the sweep's batch, a download saw different bytes and recorded a tamper.
    await recordIntegrityCheck(ctx(), { record: d.record, source: "download", observed: { hash: "0".repeat(64), size: 1, etag: null } });
    expect((await compliance(t.key, d.envelope_id)).missing_requirements).toEqual(["unalterable"]);

    await recordIntegrityChecks(ctx(), { source: "sweep", checks: [assessed] });
    expect((await sweepChecks(d.envelope_id)).map((r) => r.matched)).toEqual([1]);
    expect(await count("SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action = 'vault.integrity_restored'", d.envelope_id)).toBe(1);
    expect((await compliance(t.key, d.envelope_id)).missing_requirements).toEqual([]);
  });

  it("moves the cursor with each run's recorded checks, so the next every-minute run resumes after the last recorded copy", async () => {
    const t = await newTenant();
    for (let i = 0; i < 5; i++) await vault(t.key);
    const limits = { maxDocuments: 3, maxBytes: 1024 ** 4 };
    await onShard().prepare("INSERT INTO job_cursors (job, cycle_started_at, cursor, updated_at) VALUES ('vault_integrity_sweep', ?, '', ?)")
      .bind(new Date().toISOString(), new Date().toISOString())
      .run();
    // the whole vault of this file's storage, in the sweep's order (earlier tests' documents included)
    const ids = (await onShard().prepare("SELECT id FROM vault_records ORDER BY id").all<{ id: string }>()).results.map((r) => r.id);
    expect(ids.length).toBeGreaterThanOrEqual(6);
    const sweeps = () => Promise.all(ids.map((id) => count("SELECT COUNT(*) AS n FROM vault_integrity_checks WHERE vault_id = ? AND source = 'sweep'", id)));
    const before = await sweeps();
    const added = async () => (await sweeps()).map((n, i) => n - before[i]!);

    // (no claim on mismatches: an earlier test of this file left a tampered copy, which may sort among the first three)
    expect(await continueIntegritySweep(ctx(), new Date(), limits)).toMatchObject({ ran: true, checked: 3, cycleCompleted: false });
    expect(await onShard().prepare("SELECT cursor, processed FROM job_cursors").first()).toEqual({ cursor: ids[2], processed: 3 });
    expect(await added()).toEqual(ids.map((_, i) => (i < 3 ? 1 : 0)));

    expect(await continueIntegritySweep(ctx(), new Date(), limits)).toMatchObject({ ran: true, checked: 3 });
    expect(await onShard().prepare("SELECT cursor, processed FROM job_cursors").first()).toEqual({ cursor: ids[5], processed: 6 });
    expect(await added()).toEqual(ids.map((_, i) => (i < 6 ? 1 : 0)));
  });
});
