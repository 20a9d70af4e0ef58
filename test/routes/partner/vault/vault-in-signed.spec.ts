import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, createEnvelope, newTenant } from "../../../helpers/api";
import { makePdf, sha256Hex } from "../../../helpers/pdf";
import { completedEnvelope, download, paperEnvelope, signedUrl, vaultObjects, vaultRecord } from "../../../helpers/vault";
import { shardDbOf } from "../../../helpers/shards";

const vaultIn = (key: string, id: string, body: unknown = {}) => call("POST", `/partner/envelopes/${id}/vault-in-signed`, { key, body });

describe("e-sign path: POST /partner/envelopes/:id/vault-in-signed", () => {
  it("vaults a completed envelope's signed document as the authoritative copy and fires vault.stored", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    const res = await vaultIn(t.key, e.envelope_id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: "vaulted", vaulted: true, compliant: true });

    const record = await vaultRecord(e.envelope_id);
    expect(record).toMatchObject({ document_hash: e.hash, size_bytes: e.bytes.byteLength, copy_marked: 1, custodian_org_id: e.orgId, source: "signed", actor_type: "api_key" });
    const stored = await env.DOCS.get(record!.authoritative_key);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(e.bytes);
    const event = await shardDbOf(e.envelope_id).prepare("SELECT data FROM events WHERE envelope_id = ? AND type = 'vault.stored'").bind(e.envelope_id).first<{ data: string }>();
    expect(JSON.parse(event!.data)).toMatchObject({ path: record!.authoritative_key, hash: e.hash });
    // The vault path is for the webhook only: not in the audit log either.
    const audit = await shardDbOf(e.envelope_id).prepare("SELECT data FROM audit_log WHERE chain_id = ? AND action = 'envelope.vault'").bind(e.envelope_id).first<{ data: string }>();
    expect(audit!.data).not.toContain(record!.authoritative_key);
    expect(JSON.parse(audit!.data)).toMatchObject({ from: "completed", to: "vaulted", vault_id: record!.id, hash: e.hash });
  });

  it("is idempotent: an already vaulted envelope answers 200 with the envelope and stores nothing more", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    expect((await vaultIn(t.key, e.envelope_id)).status).toBe(200);
    const before = await vaultObjects(e.orgId, e.envelope_id);
    const again = await vaultIn(t.key, e.envelope_id);
    expect(again.status).toBe(200);
    expect(again.body.data.status).toBe("vaulted");
    expect(await vaultObjects(e.orgId, e.envelope_id)).toEqual(before);
  });

  it("keeps exactly one authoritative copy when vault-in is called concurrently", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    const results = await Promise.all(Array.from({ length: 4 }, () => vaultIn(t.key, e.envelope_id)));
    for (const r of results) expect([200, 409]).toContain(r.status);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    for (const r of results.filter((r) => r.status === 200)) expect(r.body.data.status).toBe("vaulted");

    const rows = await shardDbOf(e.envelope_id).prepare("SELECT COUNT(*) AS n FROM vault_records WHERE envelope_id = ?").bind(e.envelope_id).first<{ n: number }>();
    expect(rows!.n).toBe(1);
    const record = await vaultRecord(e.envelope_id);
    const keys = await vaultObjects(e.orgId, e.envelope_id);
    expect(keys.filter((k) => k.endsWith("/authoritative.pdf"))).toEqual([record!.authoritative_key]);
    expect(keys.filter((k) => k.endsWith("/copy.pdf"))).toEqual([record!.copy_key]);
    expect(keys.every((k) => k.includes(`/${record!.id}/`))).toBe(true);
    const events = await shardDbOf(e.envelope_id).prepare("SELECT COUNT(*) AS n FROM events WHERE envelope_id = ? AND type = 'vault.stored'").bind(e.envelope_id).first<{ n: number }>();
    expect(events!.n).toBe(1);
  });

  it("cleans up what a crashed earlier attempt left in the vault prefix", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    // As if an attempt had written its objects and died before its batch.
    const orphan = `vault/${e.orgId}/${e.envelope_id}/vlt_crashedattempt/authoritative.pdf`;
    await env.DOCS.put(orphan, e.bytes);
    expect((await vaultIn(t.key, e.envelope_id)).status).toBe(200);
    expect(await env.DOCS.head(orphan)).toBeNull();
    expect((await vaultObjects(e.orgId, e.envelope_id)).filter((k) => k.endsWith("/authoritative.pdf"))).toHaveLength(1);
  });

  it("answers 422 naming the status before the envelope is completed", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const res = await vaultIn(t.key, e.envelope_id);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("Cannot vault an envelope with status pending");
    await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = 'sent' WHERE id = ?").bind(e.envelope_id).run();
    expect((await vaultIn(t.key, e.envelope_id)).body.error).toBe("Cannot vault an envelope with status sent");
  });

  it("answers 409 naming vault-in-upload for a paper envelope", async () => {
    const t = await newTenant();
    const e = await paperEnvelope(t.key);
    const res = await vaultIn(t.key, e.envelope_id);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe(`Paper envelopes (document_source upload) must be vaulted with POST /partner/envelopes/${e.envelope_id}/vault-in-upload`);
    expect(res.body.details).toEqual({ document_source: "upload", endpoint: "vault-in-upload" });
  });

  it("names the secured party from the body when the envelope has none, making check 8 pass", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key, { secured_party: undefined });
    const res = await vaultIn(t.key, e.envelope_id, { secured_party: { name: "Second Lien Bank", role: "assignee" } });
    expect(res.status).toBe(200);
    expect(res.body.data.secured_party).toEqual({ name: "Second Lien Bank", role: "assignee" });
    const cert = await call("GET", `/partner/envelopes/${e.envelope_id}/vault/certificate`, { key: t.key });
    expect(cert.body.data.secured_party).toEqual({ name: "Second Lien Bank", role: "assignee" });
    expect(cert.body.data.ucc_9105_compliance.compliant).toBe(true);
  });

  it("refuses to change an envelope's secured party at vault-in (409)", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    const res = await vaultIn(t.key, e.envelope_id, { secured_party: { name: "Someone Else" } });
    expect(res.status).toBe(409);
    expect(await vaultRecord(e.envelope_id)).toBeNull();
  });

  it("vaults without a secured party, with a certificate that says it is not compliant (the envelope's compliant: a certificate exists)", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key, { secured_party: undefined });
    const res = await vaultIn(t.key, e.envelope_id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ vaulted: true, compliant: true });
    const cert = await call("GET", `/partner/envelopes/${e.envelope_id}/vault/certificate`, { key: t.key });
    expect(cert.body.data.ucc_9105_compliance).toMatchObject({ compliant: false, score: 0.88 });
    expect(cert.body.data.secured_party).toEqual({ name: null, role: null });
  });

  it("refuses a signed document whose bytes no longer match the hash recorded at signing (409)", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    await env.DOCS.put(e.r2Key, await makePdf({ text: "altered after signing" }));
    const res = await vaultIn(t.key, e.envelope_id);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatch(/no longer matches/);
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key })).body.data.status).toBe("completed");
    expect(await vaultObjects(e.orgId, e.envelope_id)).toEqual([]);
  });

  it("never shows the vault path to the partner, in any response or error", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    const bodies: unknown[] = [];
    bodies.push((await vaultIn(t.key, e.envelope_id)).body, (await vaultIn(t.key, e.envelope_id)).body);
    const record = await vaultRecord(e.envelope_id);
    const auth = await signedUrl(t.key, e.envelope_id);
    const copy = await signedUrl(t.key, e.envelope_id, "copy");
    bodies.push(auth.body, copy.body);
    for (const path of [`/partner/envelopes/${e.envelope_id}`, `/partner/envelopes/${e.envelope_id}/status`, `/partner/envelopes/${e.envelope_id}/compliance`, `/partner/envelopes/${e.envelope_id}/vault/certificate`, "/partner/envelopes"]) {
      bodies.push((await call("GET", path, { key: t.key })).body);
    }
    bodies.push((await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: t.key, body: { reason: "x" } })).body);
    // Tampered: the refused download's error body either.
    await env.DOCS.put(record!.authoritative_key, new TextEncoder().encode("%PDF-1.7 tampered"));
    const refused = await download(auth.body.data.signed_url);
    expect(refused.status).toBe(409);
    bodies.push(refused.json());
    const text = JSON.stringify(bodies);
    expect(text).not.toContain(record!.authoritative_key);
    expect(text).not.toContain(record!.copy_key);
    expect(text).not.toContain(`vault/${e.orgId}`);
    expect(auth.body.data.signed_url).not.toContain("authoritative.pdf");
    expect(await sha256Hex(e.bytes)).toBe(e.hash);
  });
});
