import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { renewEvidenceRecords } from "../../../src/jobs/renew-evidence-records";
import { tryTimestampForDigest } from "../../../src/pdf";
import { verifyEvidence } from "../../../src/services/evidence/verifier";
import { newEvidenceRecord, readEvidenceRecord } from "../../../src/services/evidence/evidence-record";
import { newTenant } from "../../helpers/api";
import { jobContextOf } from "../../helpers/context";
import { sha256Hex } from "../../helpers/pdf";
import { vaultRecord } from "../../helpers/vault";
import { tsaUrl } from "../../pdf/seal/evidence-helpers";
import { bundleOf, forge, sealedBundle, serviceSeal, servicePin, signManifest, type Files } from "../evidence/forge";
import { shardDbOf } from "../../helpers/shards";

const dec = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
/** The renewal job on the shard of the envelope's record, with SEAL_TSA_URL set. */
const withTsa = (envelopeId: string) => jobContextOf(envelopeId, { ...env, SEAL_TSA_URL: tsaUrl("evidence-records-bundle") } as Env);
const verify = async (files: Files) => verifyEvidence(files, sha256Hex, { sealSha256: [await servicePin()] });
const brokenOf = async (files: Files) => {
  const verdict = await verify(files);
  expect(verdict.verified, verdict.verified ? "verified" : verdict.broken).toBe(false);
  return verdict.verified ? "" : verdict.broken;
};

describe("the evidence record in the evidence bundle", () => {
  it("packs the current record as evidence-record.ers, listed in the signed manifest, and verify.mjs checks its links; after a renewal the next bundle carries both timestamps", async () => {
    const t = await newTenant();
    const { envelopeId, files: before } = await sealedBundle(t.key);
    expect(before["evidence-record.ers"]).toBeUndefined();
    expect(JSON.parse(dec(before["manifest.json"])).evidence_record).toBeNull();

    const record = (await vaultRecord(envelopeId))!;
    expect((await renewEvidenceRecords(withTsa(envelopeId), new Date(), { limit: 100 })).created).toBeGreaterThanOrEqual(1);
    const files = await bundleOf(t.key, envelopeId);
    const ers = files["evidence-record.ers"]!;
    expect(ers).toBeDefined();
    const row = await shardDbOf(record.id).prepare("SELECT * FROM vault_evidence_records WHERE vault_id = ? ORDER BY timestamp_count DESC").bind(record.id).first<Record<string, any>>();
    expect(await sha256Hex(ers)).toBe(row!.record_sha256);
    const manifest = JSON.parse(dec(files["manifest.json"]));
    expect(manifest.evidence_record).toMatchObject({ file: "evidence-record.ers", sha256: row!.record_sha256 });
    expect(manifest.files.find((f: { name: string }) => f.name === "evidence-record.ers").sha256).toBe(row!.record_sha256);
    expect(dec(files["README.md"])).toContain("evidence-record.ers");

    const verdict = await verify(files);
    expect(verdict, verdict.verified ? "" : verdict.broken).toMatchObject({ verified: true });
    expect(verdict.checks.join("\n")).toMatch(/evidence record: 1 archive timestamp\(s\) \(\d{14}Z\), the first over the document's SHA-256, each next over the one before/);

    // renewed: the next bundle (the chain grew) carries the two-timestamp version
    await renewEvidenceRecords(withTsa(envelopeId), new Date(new Date(row!.renew_by).getTime() + 1000), { limit: 100 });
    const renewed = await bundleOf(t.key, envelopeId);
    expect(readEvidenceRecord(renewed["evidence-record.ers"]!).chains[0]).toHaveLength(2);
    const again = await verify(renewed);
    expect(again, again.verified ? "" : again.broken).toMatchObject({ verified: true });
    expect(again.checks.join("\n")).toContain("evidence record: 2 archive timestamp(s)");
    // the document in the bundle is the copy vaulted, unchanged
    expect(await sha256Hex(renewed["document.pdf"]!)).toBe(record.document_hash);
  });

  it("refuses a swapped or forged evidence record, naming why", async () => {
    const t = await newTenant();
    const { envelopeId } = await sealedBundle(t.key);
    await renewEvidenceRecords(withTsa(envelopeId), new Date(), { limit: 100 });
    const files = await bundleOf(t.key, envelopeId);
    expect(await verify(files)).toMatchObject({ verified: true });

    // a record over another document, put in place of the real one
    const stamped = await tryTimestampForDigest({ url: tsaUrl("evidence-records-bundle") }, crypto.getRandomValues(new Uint8Array(32)));
    if (!stamped.ok) throw new Error(stamped.reason);
    const other = newEvidenceRecord(stamped.der);
    expect(await brokenOf({ ...files, "evidence-record.ers": other })).toMatch(/^file evidence-record\.ers: SHA-256 [0-9a-f]{64}, but the signed manifest states [0-9a-f]{64}/);
    // re-signed by the service's own key with the manifest recomputed: the chain names the real record
    const resigned = await forge(files, await serviceSeal(), ({ files: f }) => {
      f["evidence-record.ers"] = other;
    });
    expect(await brokenOf(resigned)).toMatch(/^evidence record: evidence-record\.ers holds a stored record with SHA-256 [0-9a-f]{64}, but the audit chain's newest vault\.evidence_record entry states [0-9a-f]{64}$/);
    // and with the chain entry rewritten too, the record's own imprint gives it away
    const otherHash = await sha256Hex(other);
    const rewritten = await forge(files, await serviceSeal(), ({ files: f, chain }) => {
      f["evidence-record.ers"] = other;
      chain.entries.findLast((e: { action: string }) => e.action === "vault.evidence_record").data.sha256 = otherHash;
    });
    const documentHash = await sha256Hex(files["document.pdf"]!);
    expect(await brokenOf(rewritten)).toMatch(new RegExp(`^evidence record: archive timestamp 1 timestamps [0-9a-f]{64}, not the document's SHA-256 ${documentHash}$`));
    // a record dropped from the bundle and from the (re-signed) manifest, while the chain records one
    const m = JSON.parse(dec(files["manifest.json"]));
    m.files = m.files.filter((f: { name: string }) => f.name !== "evidence-record.ers");
    m.evidence_record = null;
    const mBytes = new TextEncoder().encode(JSON.stringify(m));
    const { "evidence-record.ers": _dropped, ...rest } = files;
    expect(await brokenOf({ ...rest, "manifest.json": mBytes, "manifest.jws": await signManifest(mBytes, await serviceSeal()) })).toBe(
      "evidence record: the audit chain records one but the signed manifest does not list evidence-record.ers",
    );
  });
});
