import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import worker from "../../src/index";
import { renewEvidenceRecords } from "../../src/jobs/renew-evidence-records";
import { checkEvidenceRecord } from "../../src/services/vault/evidence-record/check";
import { readEvidenceRecord } from "../../src/services/evidence/evidence-record";
import { renewEvidenceRecord } from "../../src/services/vault/evidence-record/renew-evidence-record";
import { listDueEvidenceRecords } from "../../src/services/vault/evidence-record/repository";
import { call, newTenant } from "../helpers/api";
import { jobContextOn } from "../helpers/context";
import { shardOf } from "../../src/lib/shards";
import { sha256Hex } from "../helpers/pdf";
import { completedEnvelope, vaultObjects, vaultRecord } from "../helpers/vault";
import { caCertificate, outage, tsaUrl } from "../pdf/seal/evidence-helpers";
import { shardDbOf } from "../helpers/shards";

const hex = (b: ArrayBuffer | Uint8Array) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join("");

/** The shard of the test's latest vault record: the job runs per shard, as the cron runs it on each. */
let shard = 1;
/** The job as the cron runs it on that shard, with SEAL_TSA_URL at a TSA path of the test's own. */
const withTsa = (path: string) => jobContextOn(shard, { ...env, SEAL_TSA_URL: tsaUrl(path) } as Env);
const run = (path: string, now = new Date()) => renewEvidenceRecords(withTsa(path), now, { limit: 100 });

async function vaulted() {
  const t = await newTenant();
  const e = await completedEnvelope(t.key);
  shard = shardOf(e.envelope_id);
  expect((await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} })).status).toBe(200);
  return { t, e, record: (await vaultRecord(e.envelope_id))! };
}

async function rows(vaultId: string) {
  const { results } = await shardDbOf(vaultId).prepare("SELECT * FROM vault_evidence_records WHERE vault_id = ? ORDER BY timestamp_count").bind(vaultId).all<Record<string, any>>();
  return results;
}

async function chainEntries(envelopeId: string, action: string) {
  const { results } = await shardDbOf(envelopeId).prepare("SELECT data FROM audit_log WHERE chain_id = ? AND action = ? ORDER BY seq").bind(envelopeId, action).all<{ data: string }>();
  return results.map((r) => JSON.parse(r.data) as Record<string, any>);
}

async function stored(key: string) {
  const object = await env.DOCS.get(key);
  return object ? { bytes: new Uint8Array(await object.arrayBuffer()), uploaded: object.uploaded.getTime() } : null;
}

describe("evidence records: first record and renewal (RFC 4998)", () => {
  it("gives a vaulted record its evidence record over the authoritative copy's hash, then renews it past renew_by without touching the copy", async () => {
    const { e, record } = await vaulted();
    const copyBefore = (await stored(record.authoritative_key))!;

    const first = await run("evidence-records-job");
    expect(first.created).toBeGreaterThanOrEqual(1);
    const [row1] = await rows(record.id);
    expect(row1).toMatchObject({ timestamp_count: 1, org_id: record.org_id });
    // stored beside the copy, under its vault directory, with the SHA-256 the row records
    const dir = record.authoritative_key.slice(0, record.authoritative_key.lastIndexOf("/") + 1);
    expect(row1!.record_key.startsWith(`${dir}evidence-record-1-`)).toBe(true);
    const der1 = (await stored(row1!.record_key))!.bytes;
    expect(await sha256Hex(der1)).toBe(row1!.record_sha256);
    const parsed1 = readEvidenceRecord(der1);
    expect(parsed1.chains[0]!.map((a) => a.imprint)).toEqual([record.document_hash]);
    expect(await checkEvidenceRecord(der1, record.document_hash)).toEqual([]);
    // renew_by: the TSA certificate's notAfter less 90 days
    const notAfter = parsed1.chains[0]![0]!.tsaNotAfter!;
    expect(row1!.renew_by).toBe(new Date(notAfter.getTime() - 90 * 86_400_000).toISOString());
    const entries1 = await chainEntries(e.envelope_id, "vault.evidence_record");
    expect(entries1).toEqual([expect.objectContaining({ vault_id: record.id, sha256: row1!.record_sha256, timestamp_count: 1, document_hash: record.document_hash, renew_by: row1!.renew_by })]);

    // the record is next due at its renew_by: the job finds it by that, not by reading every record
    const dueAt = async () => (await shardDbOf(record.id).prepare("SELECT evidence_due_at FROM vault_records WHERE id = ?").bind(record.id).first<string>("evidence_due_at"))!;
    expect(await dueAt()).toBe(row1!.renew_by);
    expect((await listDueEvidenceRecords(shardDbOf(record.id), new Date(new Date(row1!.renew_by).getTime() - 60_000).toISOString(), 100)).map((d) => d.record.id)).not.toContain(record.id);

    // before renew_by nothing more happens
    await run("evidence-records-job", new Date(new Date(row1!.renew_by).getTime() - 60_000));
    expect(await rows(record.id)).toHaveLength(1);

    // the clock moved past renew_by: a renewal, a second object, the first one kept as it was
    const renewal = await run("evidence-records-job", new Date(new Date(row1!.renew_by).getTime() + 1000));
    expect(renewal.renewed).toBeGreaterThanOrEqual(1);
    const all = await rows(record.id);
    expect(all.map((r) => r.timestamp_count)).toEqual([1, 2]);
    const row2 = all[1]!;
    expect(row2.record_key).not.toBe(row1!.record_key);
    expect(hex((await stored(row1!.record_key))!.bytes)).toBe(hex(der1));
    const der2 = (await stored(row2.record_key))!.bytes;
    expect(await sha256Hex(der2)).toBe(row2.record_sha256);
    const [ats1, ats2] = readEvidenceRecord(der2).chains[0]!;
    expect(hex(ats1!.der)).toBe(hex(parsed1.chains[0]![0]!.der));
    expect(ats1!.imprint).toBe(record.document_hash);
    expect(ats2!.imprint).toBe(await sha256Hex(ats1!.der));
    expect(await checkEvidenceRecord(der2, record.document_hash)).toEqual([]);
    // the renewal's token verified by pkijs against the test CA, over the first token
    expect(await ats2!.signedData.verify({ signer: 0, data: ats1!.der.slice().buffer, checkChain: true, trustedCerts: [caCertificate()] })).toBe(true);
    expect((await chainEntries(e.envelope_id, "vault.evidence_record")).map((d) => d.timestamp_count)).toEqual([1, 2]);
    expect(await dueAt()).toBe(row2.renew_by);

    // the authoritative copy: same bytes, same object, same recorded hash
    const copyAfter = (await stored(record.authoritative_key))!;
    expect(hex(copyAfter.bytes)).toBe(hex(copyBefore.bytes));
    expect(copyAfter.uploaded).toBe(copyBefore.uploaded);
    expect(await sha256Hex(copyAfter.bytes)).toBe(record.document_hash);
    expect((await vaultRecord(e.envelope_id))!.document_hash).toBe(record.document_hash);
  });

  it("leaves a record without evidence while the TSA is down, logs nothing as done, and creates it when the TSA is back", async () => {
    const { e, record } = await vaulted();
    await outage(env.TEST_TSA_URL, "/tsa/evidence-records-down", true);
    try {
      const down = await run("evidence-records-down");
      expect(down.waiting).toBeGreaterThanOrEqual(1);
      expect(await rows(record.id)).toEqual([]);
      expect(await chainEntries(e.envelope_id, "vault.evidence_record")).toEqual([]);
      expect((await vaultObjects(record.org_id, e.envelope_id)).filter((k) => k.endsWith(".ers"))).toEqual([]);
    } finally {
      await outage(env.TEST_TSA_URL, "/tsa/evidence-records-down", false);
    }
    const back = await run("evidence-records-down");
    expect(back.created).toBeGreaterThanOrEqual(1);
    const [row] = await rows(record.id);
    expect(row).toMatchObject({ timestamp_count: 1 });
    expect(await checkEvidenceRecord((await stored(row!.record_key))!.bytes, record.document_hash)).toEqual([]);
    expect(await chainEntries(e.envelope_id, "vault.evidence_record")).toHaveLength(1);
  });

  it("does nothing without SEAL_TSA_URL, and the minute cron runs it", async () => {
    const { record } = await vaulted();
    expect(env.SEAL_TSA_URL).toBeFalsy();
    expect(await renewEvidenceRecords(jobContextOn(shard), new Date(), { limit: 100 })).toEqual({ ran: false, created: 0, renewed: 0, waiting: 0 });
    const c = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), { ...env, SEAL_TSA_URL: tsaUrl("evidence-records-cron") } as Env, c);
    await waitOnExecutionContext(c);
    expect((await rows(record.id)).map((r) => r.timestamp_count)).toEqual([1]);
  });

  it("lands one version when two runs renew the same record at once, and leaves no stray object", async () => {
    const { e, record } = await vaulted();
    const due = (await listDueEvidenceRecords(shardDbOf(record.id), new Date().toISOString(), 1000)).find((d) => d.record.id === record.id)!;
    expect(due.current).toBeNull();
    const outcomes = await Promise.all([renewEvidenceRecord(withTsa("evidence-records-race"), due), renewEvidenceRecord(withTsa("evidence-records-race"), due)]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(["created", "raced"]);
    expect((await rows(record.id)).map((r) => r.timestamp_count)).toEqual([1]);
    expect(await chainEntries(e.envelope_id, "vault.evidence_record")).toHaveLength(1);
    const objects = (await vaultObjects(record.org_id, e.envelope_id)).filter((k) => k.endsWith(".ers"));
    expect(objects).toEqual([(await rows(record.id))[0]!.record_key]);
  });
});
