import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../../src/app";
import { call, createEnvelope, newTenant } from "../../../helpers/api";
import { makePdf, sha256Hex } from "../../../helpers/pdf";
import { completedEnvelope, compliance, download, signedUrl, vaultRecord } from "../../../helpers/vault";
import { shardDbOf } from "../../../helpers/shards";

async function vaulted() {
  const t = await newTenant();
  const e = await completedEnvelope(t.key);
  const res = await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} });
  expect(res.status).toBe(200);
  return { t, e, record: (await vaultRecord(e.envelope_id))! };
}

/** Rewrites one query parameter (or the path) of a signed URL. */
function tweak(url: string, edit: (u: URL) => void): string {
  const u = new URL(url);
  edit(u);
  return u.toString();
}

const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === "0" ? "1" : "0") + s.slice(at + 1);

describe("GET …/vault/signed-url and …/vault/copy/signed-url", () => {
  it("returns a storage-host URL with filename, expires_in and expires_at; `expires` sets the lifetime", async () => {
    const { t, e } = await vaulted();
    const before = Date.now();
    const res = await signedUrl(t.key, e.envelope_id, "authoritative", "?expires=3600");
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(["expires_at", "expires_in", "filename", "signed_url"]);
    expect(data.expires_in).toBe(3600);
    const expiresAt = Date.parse(data.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 3600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000);
    expect(data.expires_at).toMatch(/\.\d{3}Z$/);
    expect(data.signed_url).toMatch(/^http:\/\/localhost:8787\/storage\/v\/vlt_(?:[1-9][0-9]{0,3}_)?[0-9a-z]{26}\/authoritative\?exp=\d+&c=org_[0-9a-z_]+&sig=[0-9a-f]{64}$/);
    expect(data.filename).toBe(`${e.envelope_name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}_${e.envelope_id}.pdf`);
    for (const expires of ["60", "86400"]) expect((await signedUrl(t.key, e.envelope_id, "copy", `?expires=${expires}`)).status).toBe(200);
  });

  it("answers 400 for `expires` outside 60..86400 or not an integer", async () => {
    const { t, e } = await vaulted();
    for (const q of ["59", "86401", "abc", "1.5", "-60"]) {
      const res = await signedUrl(t.key, e.envelope_id, "authoritative", `?expires=${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.details[0].path).toEqual(["expires"]);
    }
  });

  it("answers 404 for an envelope that is completed but not vaulted, and for one that does not exist", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    for (const which of ["authoritative", "copy"] as const) {
      const res = await signedUrl(t.key, e.envelope_id, which);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatch(/not vaulted/);
    }
    const fresh = await createEnvelope(t.key);
    expect((await signedUrl(t.key, fresh.envelope_id)).status).toBe(404);
    expect((await signedUrl(t.key, "env_doesnotexist")).status).toBe(404);
  });

  it("is not served to another organization (404)", async () => {
    const { e } = await vaulted();
    const other = await newTenant();
    expect((await signedUrl(other.key, e.envelope_id)).status).toBe(404);
  });

  it("answers 503 naming STORAGE_URL_SECRET when it is not configured", async () => {
    const { t, e } = await vaulted();
    const res = await app.request(
      `http://localhost/api/v2/partner/envelopes/${e.envelope_id}/vault/signed-url`,
      { headers: { "X-API-Key": t.key } },
      { ...env, STORAGE_URL_SECRET: undefined },
      { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext,
    );
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toMatch(/STORAGE_URL_SECRET/);
  });
});

describe("the storage route behind a signed URL", () => {
  it("refuses a URL with a changed signature byte, a changed expiry, a changed document or role (403)", async () => {
    const { t, e, record } = await vaulted();
    const url = (await signedUrl(t.key, e.envelope_id)).body.data.signed_url as string;
    const exp = new URL(url).searchParams.get("exp")!;
    const sig = new URL(url).searchParams.get("sig")!;
    const forged = [
      tweak(url, (u) => u.searchParams.set("sig", flip(sig, 10))),
      tweak(url, (u) => u.searchParams.set("sig", sig.toUpperCase().slice(0, 63))),
      tweak(url, (u) => u.searchParams.set("exp", String(Number(exp) + 86_400))),
      tweak(url, (u) => u.searchParams.set("exp", `${exp}0`)),
      url.replace(record.id, flip(record.id, 8)),
      url.replace("/authoritative?", "/copy?"),
    ];
    for (const f of forged) {
      const res = await download(f);
      expect(res.status, f).toBe(403);
      expect(res.json().error).toMatch(/Invalid download link/);
    }
    expect((await download(url)).status).toBe(200);
  });

  it("refuses an expired URL (403) even with a valid signature", async () => {
    const { t, e } = await vaulted();
    const url = (await signedUrl(t.key, e.envelope_id, "authoritative", "?expires=60")).body.data.signed_url as string;
    const later = Date.now() + 61_000;
    const realNow = Date.now;
    Date.now = () => later; // the Worker runs in this isolate: move its clock past the expiry
    try {
      const res = await download(url);
      expect(res.status).toBe(403);
      expect(res.json().error).toMatch(/expired/);
    } finally {
      Date.now = realNow;
    }
  });

  it("answers 400 when exp or sig is missing, and carries X-Request-Id", async () => {
    const { t, e } = await vaulted();
    const url = (await signedUrl(t.key, e.envelope_id)).body.data.signed_url as string;
    const res = await SELF.fetch(url.split("?")[0]!);
    expect(res.status).toBe(400);
    expect(res.headers.get("X-Request-Id")).toMatch(/^req_/);
  });

  it("serves the copy without re-hashing the authoritative copy", async () => {
    const { t, e, record } = await vaulted();
    const url = (await signedUrl(t.key, e.envelope_id, "copy")).body.data.signed_url as string;
    const res = await download(url);
    expect(res.status).toBe(200);
    expect(await sha256Hex(res.bytes)).toBe(record.copy_hash);
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
  });
});

describe("tamper detection on the authoritative download", () => {
  it("refuses a document whose bytes were overwritten, records the tamper event once, and re-issues a non-compliant certificate", async () => {
    const { t, e, record } = await vaulted();
    const url = (await signedUrl(t.key, e.envelope_id)).body.data.signed_url as string;
    expect((await download(url)).status).toBe(200);
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}/status`, { key: t.key })).body.data.compliant).toBe(true);

    await env.DOCS.put(record.authoritative_key, await makePdf({ text: "forged terms" }));
    const refused = await download(url);
    expect(refused.status).toBe(409);
    expect(refused.json()).toMatchObject({ code: "integrity_check_failed", error: expect.stringMatching(/integrity check/) });

    const audit = await shardDbOf(e.envelope_id).prepare("SELECT action, actor_type, data FROM audit_log WHERE chain_id = ? AND action = 'vault.tamper_detected'").bind(e.envelope_id).all<{ action: string; actor_type: string; data: string }>();
    expect(audit.results).toHaveLength(1);
    expect(JSON.parse(audit.results[0]!.data)).toMatchObject({ detected_by: "download", expected_hash: e.hash, observed_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const events = await shardDbOf(e.envelope_id).prepare("SELECT data FROM events WHERE envelope_id = ? AND type = 'vault.tamper_detected'").bind(e.envelope_id).all<{ data: string }>();
    expect(events.results).toHaveLength(1);
    expect(JSON.parse(events.results[0]!.data)).toMatchObject({ envelope_id: e.envelope_id, customer_id: e.customer_id, detected_by: "download", expected_hash: e.hash });
    expect(events.results[0]!.data).not.toContain(record.authoritative_key);

    const live = await compliance(t.key, e.envelope_id);
    expect(live.compliant).toBe(false);
    expect(live.missing_requirements).toEqual(["unalterable"]);
    const status = await call("GET", `/partner/envelopes/${e.envelope_id}/status`, { key: t.key });
    // a certificate exists, so the envelope's `compliant` stays true (spec part 2); the new certificate version says the record fails
    expect(status.body.data).toMatchObject({ vaulted: true, compliant: true });
    const cert = await call("GET", `/partner/envelopes/${e.envelope_id}/vault/certificate`, { key: t.key });
    expect(cert.body.data.ucc_9105_compliance).toMatchObject({ compliant: false, score: 0.88 });
    expect(cert.body.data.esign_act_compliance.compliant).toBe(false);
    const versions = await shardDbOf(e.envelope_id).prepare("SELECT version, compliant, reason FROM vault_certificates WHERE envelope_id = ? ORDER BY version").bind(e.envelope_id).all();
    expect(versions.results).toEqual([
      { version: 1, compliant: 1, reason: "vault_in" },
      { version: 2, compliant: 0, reason: "integrity_check:download" },
    ]);

    // Downloading again is refused again, without a second tamper event; the chain still verifies.
    expect((await download(url)).status).toBe(409);
    const again = await shardDbOf(e.envelope_id).prepare("SELECT COUNT(*) AS n FROM events WHERE envelope_id = ? AND type = 'vault.tamper_detected'").bind(e.envelope_id).first<{ n: number }>();
    expect(again!.n).toBe(1);
    const checks = await shardDbOf(e.envelope_id).prepare("SELECT source, matched FROM vault_integrity_checks WHERE envelope_id = ? ORDER BY checked_at, rowid").bind(e.envelope_id).all();
    expect(checks.results).toEqual([
      { source: "vault_in", matched: 1 },
      { source: "download", matched: 1 },
      { source: "download", matched: 0 },
      { source: "download", matched: 0 },
    ]);
    expect(live.checks.find((c: { requirement: string }) => c.requirement === "revisions_identifiable").satisfied).toBe(true);
  });

  it("treats a deleted authoritative object as tampered, and a restored one as intact again", async () => {
    const { t, e, record } = await vaulted();
    const url = (await signedUrl(t.key, e.envelope_id)).body.data.signed_url as string;
    await env.DOCS.delete(record.authoritative_key);
    expect((await download(url)).status).toBe(409);
    expect((await compliance(t.key, e.envelope_id)).missing_requirements).toEqual(["unalterable"]);

    await env.DOCS.put(record.authoritative_key, e.bytes);
    const restored = await download(url);
    expect(restored.status).toBe(200);
    expect(restored.bytes).toEqual(e.bytes);
    expect((await compliance(t.key, e.envelope_id)).compliant).toBe(true);
    const status = await call("GET", `/partner/envelopes/${e.envelope_id}/status`, { key: t.key });
    expect(status.body.data.compliant).toBe(true);
    const actions = await shardDbOf(e.envelope_id).prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(e.envelope_id).all<{ action: string }>();
    expect(actions.results.map((a) => a.action).slice(-2)).toEqual(["vault.tamper_detected", "vault.integrity_restored"]);
  });
});
