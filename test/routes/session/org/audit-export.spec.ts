import { env, SELF } from "cloudflare:test";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { inOrg, onShardOf, systemContext } from "../../../../src/lib/context";
import { appendEnvelopeAudit } from "../../../../src/services/envelopes/append-audit";
import { verifyEvidence } from "../../../../src/services/evidence/verifier";
import { BASE, call, callWith, createEnvelope, newTenant, operator } from "../../../helpers/api";
import type { Env } from "../../../../src/env";
import { sha256Hex } from "../../../helpers/pdf";
import { globalDb, shardDb } from "../../../helpers/shards";
import { memberToken } from "../../../helpers/templates";
import { servicePin } from "../../../services/evidence/forge";

const dec = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
const sha = (bytes: Uint8Array) => sha256Hex(bytes);

/** GET /org/audit-export as the console sends it: the status and the ZIP's members. */
async function exportOf(bearer: string, query = ""): Promise<{ status: number; type: string | null; files: Record<string, Uint8Array>; body: string }> {
  const res = await SELF.fetch(`${BASE}/org/audit-export${query}`, { headers: { Authorization: `Bearer ${bearer}` } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get("content-type"), files: res.status === 200 ? unzipSync(bytes) : {}, body: res.status === 200 ? "" : dec(bytes) };
}

/** An organization with envelopes on shards 1 and 2 and an entry of its own chain; its admin's token. */
async function organizationOnTwoShards() {
  const t = await newTenant({ shard: 1 });
  const admin = await memberToken(t.orgId, "admin");
  const onOne = await createEnvelope(t.key);
  expect((await operator("PATCH", `/orgs/${t.orgId}`, { current_shard_id: 2 })).status).toBe(200);
  const onTwo = await createEnvelope(t.key);
  expect((await call("PUT", "/org/retention", { bearer: admin, body: { retain_years_after_close: 9, auto_destroy: false } })).status).toBe(200);
  return { ...t, admin, envelopes: [onOne.envelope_id, onTwo.envelope_id] };
}

const lines = (files: Record<string, Uint8Array>) =>
  dec(files["entries.ndjson"])
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { chain: string; seq: number; hash: string; prev_hash: string; action: string });

describe("GET /org/audit-export", () => {
  it("streams every chain of the organization on both shards, with a signed manifest that names entries.ndjson's hash, and verify.mjs checks it", async () => {
    const t = await organizationOnTwoShards();
    const out = await exportOf(t.admin);
    expect(out.status, out.body).toBe(200);
    expect(out.type).toBe("application/zip");
    expect(Object.keys(out.files).sort()).toEqual(["entries.ndjson", "manifest.json", "manifest.jws", "verify.mjs"]);

    const manifest = JSON.parse(dec(out.files["manifest.json"]));
    expect(manifest).toMatchObject({ kind: "audit-export", org_id: t.orgId, from: null, to: null });
    expect(manifest.entries.sha256).toBe(await sha(out.files["entries.ndjson"]!));
    const entries = lines(out.files);
    expect(manifest.entries.count).toBe(entries.length);
    // the organization's chain (global database) and each envelope's chain, on shard 1 and on shard 2
    const chains = manifest.chains.map((c: { chain: string }) => c.chain).sort();
    expect(chains).toEqual([t.orgId, ...t.envelopes].sort());
    expect(entries.some((e) => e.chain === t.orgId && e.action === "org.retention_updated")).toBe(true);
    for (const [chainId, db] of [[t.envelopes[0]!, shardDb(1)], [t.envelopes[1]!, shardDb(2)], [t.orgId, globalDb]] as const) {
      const stored = await db.prepare("SELECT seq, hash FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(chainId).all<{ seq: number; hash: string }>();
      const claim = manifest.chains.find((c: { chain: string }) => c.chain === chainId);
      expect(stored.results.length).toBeGreaterThan(0);
      expect(claim).toMatchObject({ count: stored.results.length, first_seq: 1, first_prev_hash: "0".repeat(64), first_hash: stored.results[0]!.hash, last_hash: stored.results.at(-1)!.hash });
      expect(entries.filter((e) => e.chain === chainId).map((e) => e.hash)).toEqual(stored.results.map((r) => r.hash));
    }
    // the manifest is signed by the seal, byte for byte
    const [header, payload] = dec(out.files["manifest.jws"]).trim().split(".");
    expect(JSON.parse(atob(header!.replace(/-/g, "+").replace(/_/g, "/"))).typ).toBe("audit-export-manifest+jws");
    expect(payload).toBe(btoa(dec(out.files["manifest.json"])).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""));
    const served = await call("GET", "/evidence/verifier?format=raw");
    expect(dec(out.files["verify.mjs"])).toBe(served.body);

    const pin = await servicePin();
    const verdict = await verifyEvidence(out.files, sha, { sealSha256: [pin], auditExport: true });
    expect(verdict.verified, JSON.stringify(verdict)).toBe(true);

    // one changed byte of entries.ndjson, or an entry left out with the hash made to fit, is caught
    const altered = new Uint8Array(out.files["entries.ndjson"]!);
    altered[10] = altered[10] === 0x61 ? 0x62 : 0x61;
    const changed = await verifyEvidence({ ...out.files, "entries.ndjson": altered }, sha, { sealSha256: [pin], auditExport: true });
    expect(changed.verified).toBe(false);
    expect(!changed.verified && changed.broken).toMatch(/^entries\.ndjson: SHA-256 /);
    // an evidence-bundle pin that is not the seal's
    const unpinned = await verifyEvidence(out.files, sha, { sealSha256: ["ab".repeat(32)], auditExport: true });
    expect(unpinned.verified).toBe(false);
  });

  it("with `from`, a chain starts mid-way: its first entry links to the prev_hash the manifest states", async () => {
    const t = await organizationOnTwoShards();
    const envelopeId = t.envelopes[0]!;
    await new Promise((r) => setTimeout(r, 20));
    const from = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const ctx = onShardOf(inOrg(systemContext(env, () => {}), t.orgId), envelopeId);
    for (let i = 0; i < 2; i++) {
      await appendEnvelopeAudit(ctx, { orgId: t.orgId, envelopeId, actor: { type: "system", id: null }, build: async () => ({ action: "vault.certificate_reissued", data: { reason: `window ${i}` }, statements: [] }) });
    }
    const out = await exportOf(t.admin, `?from=${encodeURIComponent(from)}`);
    expect(out.status, out.body).toBe(200);
    const manifest = JSON.parse(dec(out.files["manifest.json"]));
    expect(manifest.from).toBe(from);
    expect(manifest.chains).toHaveLength(1);
    const [chain] = manifest.chains;
    expect(chain).toMatchObject({ chain: envelopeId, count: 2 });
    expect(chain.first_seq).toBeGreaterThan(1);
    expect(chain.first_prev_hash).not.toBe("0".repeat(64));
    const verdict = await verifyEvidence(out.files, sha, { sealSha256: [await servicePin()], auditExport: true });
    expect(verdict.verified, JSON.stringify(verdict)).toBe(true);
  });

  it("is for admins: a member is 403; `from` after `to` is 400; a date that is not ISO is 400", async () => {
    const t = await newTenant();
    const member = await memberToken(t.orgId, "member");
    expect((await exportOf(member)).status).toBe(403);
    const admin = await memberToken(t.orgId, "admin");
    const backwards = await exportOf(admin, "?from=2026-02-01&to=2026-01-01");
    expect(backwards.status).toBe(400);
    expect(JSON.parse(backwards.body)).toMatchObject({ error: expect.any(String) });
    expect((await exportOf(admin, "?from=yesterday")).status).toBe(400);
    expect((await SELF.fetch(`${BASE}/org/audit-export`)).status).toBe(401);
  });

  it("without a seal configured answers 503 before the first byte, never an unsigned export", async () => {
    const t = await newTenant();
    const admin = await memberToken(t.orgId, "admin");
    const res = await callWith({ ...env, SEAL_PRIVATE_KEY: undefined, SEAL_CERTIFICATE: undefined } as unknown as Env, "GET", "/org/audit-export", { bearer: admin });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: expect.any(String) });
  });
});
