import { env } from "cloudflare:test";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { inOrg, onShardOf, systemContext } from "../../../src/lib/context";
import { verifyEvidence } from "../../../src/services/evidence/verifier";
import { appendEnvelopeAudit } from "../../../src/services/envelopes/append-audit";
import { createEvidenceUrl } from "../../../src/services/vault/evidence-bundle";
import type { Env } from "../../../src/env";
import { runBulkChunk } from "../../../src/services/bulk/run-chunk";
import { callWith, newTenant } from "../../helpers/api";
import { bulkTenant, readyBatch } from "../../helpers/bulk";
import { sha256Hex } from "../../helpers/pdf";
import { download } from "../../helpers/vault";
import { sealedBundle, servicePin, type Files } from "./forge";
import { shardDbOf } from "../../helpers/shards";

// Reviewer R27 (issue 27 against docs/evidence.md): gaps found in review, each proved here.

const dec = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
const verify = (files: Files, pins: string[]) => verifyEvidence(files, (b) => sha256Hex(b), { sealSha256: pins });

/** A vaulted envelope's bundle produced with SEAL_TSA_URL set: the manifest's signature is timestamped. */
async function timestampedBundle(): Promise<Files> {
  const t = await newTenant();
  const { envelopeId } = await sealedBundle(t.key);
  const ctx = onShardOf(inOrg(systemContext({ ...env, SEAL_TSA_URL: env.TEST_TSA_URL }, () => {}), t.orgId), envelopeId);
  // the chain grows, so the next request produces a fresh bundle, now under a TSA
  await appendEnvelopeAudit(ctx, { orgId: t.orgId, envelopeId, actor: { type: "system", id: null }, build: async () => ({ action: "vault.certificate_reissued", data: { reason: "review" }, statements: [] }) });
  const url = await createEvidenceUrl(ctx, { envelopeId, expiresIn: 300 });
  return unzipSync((await download(url.signed_url)).bytes);
}

describe("review of issue 27: the verifier and the signed bundle", () => {
  it("refuses a bundle whose signed manifest names a timestamp (manifest.tsr) that was dropped", async () => {
    const files = await timestampedBundle();
    const pin = await servicePin();
    expect(JSON.parse(dec(files["manifest.json"])).signature.timestamp).toBe("manifest.tsr");
    expect(await verify(files, [pin])).toMatchObject({ verified: true });
    // the manifest (signed) says the bundle is timestamped; without the token it proves less than it says
    const { "manifest.tsr": _dropped, ...withoutToken } = files;
    const verdict = await verify(withoutToken, [pin]);
    expect(verdict.verified).toBe(false);
    expect(verdict.verified ? "" : verdict.broken).toBe("timestamp: the signed manifest names manifest.tsr, a timestamp over its signature, but the bundle does not carry it");
  });
});

/** A Durable Object namespace whose batch objects accept `start` and do nothing: the test runs the chunk itself. */
const idleBulkNamespace = {
  idFromName: (name: string) => env.BULK_BATCH!.idFromName(name),
  get: () => ({ start: async () => {} }),
} as unknown as Env["BULK_BATCH"];

describe("review of issue 27: no envelope goes out that could not be sealed", () => {
  it("a bulk batch whose seal key went missing after submission sends nothing: each item waits, naming SEAL_PRIVATE_KEY", async () => {
    const t = await bulkTenant();
    const { batchId } = await readyBatch(t, { n: 2 });
    const submit = await callWith({ ...env, BULK_BATCH: idleBulkNamespace }, "POST", `/bulk-send/${batchId}/submit`, { bearer: t.admin, headers: { "X-Org-Id": t.orgId }, body: {} });
    expect(submit.status, JSON.stringify(submit.body)).toBe(202);
    // the deployment loses its seal key before the batch's chunk runs
    const unsealed = onShardOf(systemContext({ ...env, SEAL_PRIVATE_KEY: undefined } as Env, () => {}), batchId);
    await runBulkChunk(unsealed, { batchId, orgId: t.orgId, hooks: { checkpoint: () => {} } });
    const sent = await shardDbOf(batchId).prepare("SELECT COUNT(*) AS n FROM envelopes WHERE json_extract(metadata, '$.bulk_send.batch_id') = ? AND status <> 'preparing'").bind(batchId).first<{ n: number }>();
    expect(sent!.n).toBe(0);
    const { results: items } = await shardDbOf(batchId).prepare("SELECT status, error FROM bulk_items WHERE batch_id = ?").bind(batchId).all<{ status: string; error: string | null }>();
    expect(items).toHaveLength(2);
    for (const item of items) {
      expect(item.status).not.toBe("sent");
      expect(item.error).toContain("SEAL_PRIVATE_KEY");
    }
  });
});
