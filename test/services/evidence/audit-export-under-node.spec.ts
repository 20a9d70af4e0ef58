import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { unzipSync, zipSync } from "fflate";
import { describe, expect, inject, it } from "vitest";
import { app } from "../../../src/app";
import type { Env } from "../../../src/env";
import { BASE, call, createEnvelope, newTenant, operator } from "../../helpers/api";
import { memberToken } from "../../helpers/templates";
import { fingerprint, servicePin } from "./forge";

// The audit export's verify.mjs (the one the service serves) run by Node as an auditor runs it,
// `node verify.mjs --audit-export <folder or zip>` (test/global/node-verifier.mjs), on a real export
// of an organization with envelopes on both shards, timestamped by the test PKI's TSA.

const auditorsMachine = () => `http://127.0.0.1:${inject("nodeVerifierPort")}`;

async function nodeVerify(zip: Uint8Array, args: string[], keepZip?: string): Promise<{ code: number | string; out: string }> {
  const query = [...args.map((a) => `arg=${encodeURIComponent(a)}`), ...(keepZip ? [`zip=${keepZip}`] : [])].join("&");
  const res = await fetch(`${auditorsMachine()}/run?${query}`, { method: "POST", body: zip });
  expect(res.status).toBe(200);
  const run = (await res.json()) as { code: number | string; stdout: string; stderr: string };
  return { code: run.code, out: `${run.stdout}${run.stderr}` };
}

/** The export as an admin downloads it from a deployment with a timestamp authority. */
async function timestampedExport(): Promise<Uint8Array> {
  const t = await newTenant({ shard: 1 });
  const admin = await memberToken(t.orgId, "admin");
  await createEnvelope(t.key);
  expect((await operator("PATCH", `/orgs/${t.orgId}`, { current_shard_id: 2 })).status).toBe(200);
  await createEnvelope(t.key);
  expect((await call("PUT", "/org/retention", { bearer: admin, body: { retain_years_after_close: 8, auto_destroy: false } })).status).toBe(200);
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(`${BASE}/org/audit-export`, { headers: { Authorization: `Bearer ${admin}` } }), { ...env, SEAL_TSA_URL: env.TEST_TSA_URL } as Env, ctx);
  const bytes = new Uint8Array(await res.arrayBuffer()); // read before waiting: the export streams at the reader's pace
  await waitOnExecutionContext(ctx);
  expect(res.status, new TextDecoder().decode(bytes)).toBe(200);
  return bytes;
}

describe("verify.mjs --audit-export run by Node", () => {
  it("exits 0 on a real export (folder or ZIP) and 1 once one byte of entries.ndjson is changed", async () => {
    const zip = await timestampedExport();
    const files = unzipSync(zip);
    expect(files["manifest.tsr"], "the export carries an RFC 3161 token").toBeDefined();
    const seal = await servicePin();
    const tsaPin = await fingerprint(env.TEST_PKI_CA_CERTIFICATE);

    const folder = await nodeVerify(zip, ["--audit-export", ".", "--seal-sha256", seal, "--tsa-sha256", tsaPin]);
    expect(folder.code, folder.out).toBe(0);
    expect(folder.out).toMatch(/^verified$/m);
    expect(folder.out).toMatch(/^ok: chains: 3 chain\(s\), \d+ entries, every hash recomputed/m);
    expect(folder.out).toMatch(/^ok: timestamp: manifest\.tsr \(time /m);

    const asZip = await nodeVerify(zip, ["--audit-export", "export.zip", "--seal-sha256", seal, "--tsa-sha256", tsaPin], "export.zip");
    expect(asZip.code, asZip.out).toBe(0);

    const unpinnedTsa = await nodeVerify(zip, ["--audit-export", ".", "--seal-sha256", seal]);
    expect(unpinnedTsa.code, unpinnedTsa.out).toBe(3);
    const noSeal = await nodeVerify(zip, ["--audit-export", "."]);
    expect(noSeal.code, noSeal.out).toBe(2);

    const altered = new Uint8Array(files["entries.ndjson"]!);
    const at = altered.indexOf(0x22 /* " */, 20);
    altered[at + 1] = altered[at + 1] === 0x61 ? 0x62 : 0x61;
    const broken = await nodeVerify(zipSync({ ...files, "entries.ndjson": altered }), ["--audit-export", ".", "--seal-sha256", seal, "--tsa-sha256", tsaPin]);
    expect(broken.code, broken.out).toBe(1);
    expect(broken.out).toMatch(/^BROKEN: entries\.ndjson: SHA-256 /m);
  });
});
