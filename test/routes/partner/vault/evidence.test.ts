import { env } from "cloudflare:test";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { verifyEvidence } from "../../../../src/services/evidence/verifier";
import { call, newKey, newTenant } from "../../../helpers/api";
import { sha256Hex } from "../../../helpers/pdf";
import { sentTwoSignerEnvelope, signing, TINY_PNG } from "../../../helpers/signing-flow";
import { completedEnvelope, download } from "../../../helpers/vault";

const evidenceUrl = (key: string, envelopeId: string, query = "") => call("GET", `/partner/envelopes/${envelopeId}/vault/evidence/signed-url${query}`, { key });
const sha = (bytes: Uint8Array) => sha256Hex(bytes);

/** An envelope signed through the signing flow (so its PDF is sealed) and vaulted. */
async function signedAndVaulted() {
  const t = await newTenant();
  const e = await sentTwoSignerEnvelope(t.key);
  expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Ann Buyer" } })).status).toBe(200);
  expect((await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: "Cole Signer" } })).status).toBe(200);
  expect((await call("POST", `/partner/envelopes/${e.envelopeId}/vault-in-signed`, { key: t.key, body: {} })).status).toBe(200);
  return { t, envelopeId: e.envelopeId };
}

async function fetchBundle(key: string, envelopeId: string) {
  const res = await evidenceUrl(key, envelopeId);
  expect(res.status).toBe(200);
  const file = await download(res.body.data.signed_url);
  expect(file.status).toBe(200);
  return { url: res.body.data, file, files: unzipSync(file.bytes) };
}

async function bundleEntries(envelopeId: string) {
  const { results } = await env.DB.prepare("SELECT seq, data FROM audit_log WHERE chain_id = ? AND action = 'vault.evidence_bundle' ORDER BY seq").bind(envelopeId).all<{ seq: number; data: string }>();
  return results.map((r) => ({ seq: r.seq, ...(JSON.parse(r.data) as { sha256: string; size_bytes: number; covers_seq: number }) }));
}

describe("the evidence bundle (GET /partner/envelopes/:id/vault/evidence/signed-url)", () => {
  it("serves a ZIP of the sealed PDF, the certificate, the audit chain, the seal certificate and the verifier, which verifies it; its SHA-256 is on the chain", async () => {
    const { t, envelopeId } = await signedAndVaulted();
    const { url, file, files } = await fetchBundle(t.key, envelopeId);
    expect(url.filename).toMatch(new RegExp(`${envelopeId}_evidence\\.zip$`));
    expect(file.headers.get("content-type")).toBe("application/zip");
    expect(Object.keys(files).sort()).toEqual(
      ["README.md", "audit-chain.json", "certificate.json", "certificate.pdf", "document.pdf", "manifest.json", "seal-certificate.pem", "verify.mjs"].sort(),
    );

    const record = await env.DB.prepare("SELECT document_hash FROM vault_records WHERE envelope_id = ?").bind(envelopeId).first<{ document_hash: string }>();
    expect(await sha(files["document.pdf"]!)).toBe(record!.document_hash);
    const pem = new TextDecoder().decode(files["seal-certificate.pem"]);
    const configured = env.SEAL_CERTIFICATE!.replace(/\s+/g, "");
    expect(pem.replace(/\s+/g, "")).toBe(configured);

    const chain = JSON.parse(new TextDecoder().decode(files["audit-chain.json"]));
    const { results } = await env.DB.prepare("SELECT seq, hash, prev_hash, action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(envelopeId).all();
    // every entry up to the bundle's own (recorded after it was made), in order, with its hashes
    expect(chain.entries.map((x: { seq: number; hash: string; prev_hash: string; action: string }) => ({ seq: x.seq, hash: x.hash, prev_hash: x.prev_hash, action: x.action }))).toEqual(
      results.filter((r) => r.action !== "vault.evidence_bundle"),
    );

    const verdict = await verifyEvidence(files, sha);
    expect(verdict).toMatchObject({ verified: true });
    // the bundle's verify.mjs is that same verifier
    expect(new TextDecoder().decode(files["verify.mjs"])).toContain(verifyEvidence.toString());

    const recorded = await bundleEntries(envelopeId);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ sha256: await sha(file.bytes), size_bytes: file.bytes.byteLength, covers_seq: chain.entries.at(-1).seq });

    // asked again with nothing new on the chain: the same bundle, no new entry
    const again = await fetchBundle(t.key, envelopeId);
    expect(await sha(again.file.bytes)).toBe(recorded[0]!.sha256);
    expect(await bundleEntries(envelopeId)).toHaveLength(1);
  });

  it("names the broken link of a bundle whose audit entry or PDF was edited", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    expect((await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} })).status).toBe(200);
    const { files } = await fetchBundle(t.key, e.envelope_id);
    expect(await verifyEvidence(files, sha)).toMatchObject({ verified: true });

    // an audit entry's content edited (the vault entry claims another document hash)
    const chain = JSON.parse(new TextDecoder().decode(files["audit-chain.json"]));
    const vault = chain.entries.find((x: { action: string }) => x.action === "envelope.vault");
    vault.data.hash = "0".repeat(64);
    const editedEntry = { ...files, "audit-chain.json": new TextEncoder().encode(JSON.stringify(chain)) };
    const entryVerdict = await verifyEvidence(editedEntry, sha);
    expect(entryVerdict.verified).toBe(false);
    expect(!entryVerdict.verified && entryVerdict.broken).toContain(`audit entry seq ${vault.seq} (envelope.vault`);
    expect(!entryVerdict.verified && entryVerdict.broken).toContain("altered");

    // the first entry removed
    const shortened = JSON.parse(new TextDecoder().decode(files["audit-chain.json"]));
    shortened.entries.splice(0, 1);
    const removed = await verifyEvidence({ ...files, "audit-chain.json": new TextEncoder().encode(JSON.stringify(shortened)) }, sha);
    expect(!removed.verified && removed.broken).toMatch(/^audit entry seq 2 .*expected sequence number 1/);

    // one byte of the PDF changed
    const pdf = files["document.pdf"]!.slice();
    pdf[20] = pdf[20] === 0x41 ? 0x42 : 0x41;
    const pdfVerdict = await verifyEvidence({ ...files, "document.pdf": pdf }, sha);
    expect(pdfVerdict.verified).toBe(false);
    expect(!pdfVerdict.verified && pdfVerdict.broken).toMatch(/^document: document\.pdf has SHA-256 [0-9a-f]{64}, but the vault recorded/);
  });

  it("answers 404 before vaulting, needs vault:read (403), makes a new bundle once the chain has grown, and never serves an altered one", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    expect((await evidenceUrl(t.key, e.envelope_id)).status).toBe(404);
    await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} });
    const complianceOnly = await newKey(t.orgId, ["compliance:read", "envelopes:read"]);
    expect((await evidenceUrl(complianceOnly.key, e.envelope_id)).status).toBe(403);
    expect((await evidenceUrl((await newTenant()).key, e.envelope_id)).status).toBe(404);
    for (const q of ["59", "86401"]) expect((await evidenceUrl(t.key, e.envelope_id, `?expires=${q}`)).status).toBe(400);

    const first = await fetchBundle(t.key, e.envelope_id);
    // the chain gains an entry that is not a bundle's (a re-issued certificate): a fresh bundle covers it and lists the first
    const { appendEnvelopeAudit } = await import("../../../../src/services/envelopes/append-audit");
    const { jobContext } = await import("../../../helpers/context");
    await appendEnvelopeAudit(jobContext(), {
      orgId: t.orgId,
      envelopeId: e.envelope_id,
      actor: { type: "system", id: null },
      build: async () => ({ action: "vault.certificate_reissued", data: { reason: "test" }, statements: [] }),
    });
    const second = await fetchBundle(t.key, e.envelope_id);
    expect(await sha(second.file.bytes)).not.toBe(await sha(first.file.bytes));
    const chain = JSON.parse(new TextDecoder().decode(second.files["audit-chain.json"]));
    expect(chain.entries.map((x: { action: string }) => x.action)).toEqual(expect.arrayContaining(["vault.evidence_bundle", "vault.certificate_reissued"]));
    expect(await verifyEvidence(second.files, sha)).toMatchObject({ verified: true });
    expect(await bundleEntries(e.envelope_id)).toHaveLength(2);

    // the stored bundle replaced behind the service's back: its download is refused (409), and the next
    // request produces a fresh one rather than reusing it
    const record = await env.DB.prepare("SELECT id FROM vault_records WHERE envelope_id = ?").bind(e.envelope_id).first<{ id: string }>();
    const listed = await env.DOCS.list({ prefix: `vault/${t.orgId}/${e.envelope_id}/${record!.id}/evidence-` });
    const newest = (await bundleEntries(e.envelope_id)).at(-1) as unknown as { bundle_id: string };
    const key = listed.objects.map((o) => o.key).find((k) => k.includes(newest.bundle_id))!;
    await env.DOCS.put(key, new TextEncoder().encode("not the bundle"));
    const staleUrl = second.url.signed_url as string;
    const refused = await download(staleUrl);
    expect(refused.status).toBe(409);
    expect(refused.json().code).toBe("integrity_check_failed");
    const third = await fetchBundle(t.key, e.envelope_id);
    expect(await verifyEvidence(third.files, sha)).toMatchObject({ verified: true });
    expect(await bundleEntries(e.envelope_id)).toHaveLength(3);
  });
});
