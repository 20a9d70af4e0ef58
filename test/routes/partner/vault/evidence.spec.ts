import { env } from "cloudflare:test";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { loadSealKey } from "../../../../src/pdf";
import { sealPdf } from "../../../../src/pdf/seal/seal-pdf";
import { verifyEvidence as verifyEvidenceWithPin } from "../../../../src/services/evidence/verifier";
import verifierSource from "../../../../src/services/evidence/verify.mjs?raw";
import { servicePin, signManifest, type Files } from "../../../services/evidence/forge";
import { ALL_SCOPES, call, newKey, newTenant } from "../../../helpers/api";
import { makePdf, sha256Hex } from "../../../helpers/pdf";
import { sentTwoSignerEnvelope, signing, TINY_PNG } from "../../../helpers/signing-flow";
import { completedEnvelope, download } from "../../../helpers/vault";
import { shardDbOf } from "../../../helpers/shards";

const evidenceUrl = (key: string, envelopeId: string, query = "") => call("GET", `/partner/envelopes/${envelopeId}/vault/evidence/signed-url${query}`, { key });
const sha = (bytes: Uint8Array) => sha256Hex(bytes);
/** A completed document as the signing flow leaves it: sealed with the service's key. */
const sealedPdf = async () => sealPdf(await makePdf({ pages: 2, text: "Signed contract" }), await loadSealKey(env), { signingTime: new Date() });
/** The verifier, with the service's seal certificate pinned as an auditor would (--seal-sha256). */
const verifyEvidence = async (files: Files, hash: typeof sha) => verifyEvidenceWithPin(files, hash, { sealSha256: [await servicePin()] });
/**
 * `changed` put into the bundle with the manifest's file hashes recomputed and re-signed by the
 * service's own key: what only the service could sign, so the checks below the manifest's signature
 * (the chain, the control history, the attestation) are shown to stand on their own.
 */
async function resigned(files: Files, changed: Files): Promise<Files> {
  const out = { ...files, ...changed };
  const manifest = JSON.parse(new TextDecoder().decode(out["manifest.json"]));
  manifest.files = await Promise.all(manifest.files.map(async (f: { name: string }) => ({ ...f, sha256: await sha(out[f.name]!), size_bytes: out[f.name]!.byteLength })));
  out["manifest.json"] = new TextEncoder().encode(JSON.stringify(manifest, null, 2));
  out["manifest.jws"] = await signManifest(out["manifest.json"], await loadSealKey(env));
  return out;
}

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
  const { results } = await shardDbOf(envelopeId).prepare("SELECT seq, data FROM audit_log WHERE chain_id = ? AND action = 'vault.evidence_bundle' ORDER BY seq").bind(envelopeId).all<{ seq: number; data: string }>();
  return results.map((r) => ({ seq: r.seq, ...(JSON.parse(r.data) as { sha256: string; size_bytes: number; covers_seq: number }) }));
}

describe("the evidence bundle (GET /partner/envelopes/:id/vault/evidence/signed-url)", () => {
  it("serves a ZIP of the sealed PDF, the certificate, the audit chain, the seal certificate and the verifier, which verifies it; its SHA-256 is on the chain", async () => {
    const { t, envelopeId } = await signedAndVaulted();
    const { url, file, files } = await fetchBundle(t.key, envelopeId);
    expect(url.filename).toMatch(new RegExp(`${envelopeId}_evidence\\.zip$`));
    expect(file.headers.get("content-type")).toBe("application/zip");
    expect(Object.keys(files).sort()).toEqual(
      [
        "README.md",
        "attestation.jws",
        "audit-chain.json",
        "certificate.json",
        "certificate.pdf",
        "control-history.json",
        "document.pdf",
        "key-history.json",
        "manifest.json",
        "manifest.jws",
        "seal-certificate.pem",
        "verify.mjs",
      ].sort(),
    );

    const record = await shardDbOf(envelopeId).prepare("SELECT document_hash FROM vault_records WHERE envelope_id = ?").bind(envelopeId).first<{ document_hash: string }>();
    expect(await sha(files["document.pdf"]!)).toBe(record!.document_hash);
    const pem = new TextDecoder().decode(files["seal-certificate.pem"]);
    const configured = env.SEAL_CERTIFICATE!.replace(/\s+/g, "");
    expect(pem.replace(/\s+/g, "")).toBe(configured);

    const chain = JSON.parse(new TextDecoder().decode(files["audit-chain.json"]));
    const { results } = await shardDbOf(envelopeId).prepare("SELECT seq, hash, prev_hash, action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(envelopeId).all();
    // every entry up to the bundle's own (recorded after it was made), in order, with its hashes
    expect(chain.entries.map((x: { seq: number; hash: string; prev_hash: string; action: string }) => ({ seq: x.seq, hash: x.hash, prev_hash: x.prev_hash, action: x.action }))).toEqual(
      results.filter((r) => r.action !== "vault.evidence_bundle"),
    );

    const verdict = await verifyEvidence(files, sha);
    expect(verdict, verdict.verified ? "" : verdict.broken).toMatchObject({ verified: true });
    // the bundle's verify.mjs is that same verifier
    expect(new TextDecoder().decode(files["verify.mjs"])).toBe(verifierSource);

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
    const e = await completedEnvelope(t.key, {}, await sealedPdf());
    expect((await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} })).status).toBe(200);
    const { files } = await fetchBundle(t.key, e.envelope_id);
    expect(await verifyEvidence(files, sha)).toMatchObject({ verified: true });

    // an audit entry's content edited (the vault entry claims another document hash)
    const chain = JSON.parse(new TextDecoder().decode(files["audit-chain.json"]));
    const vault = chain.entries.find((x: { action: string }) => x.action === "envelope.vault");
    vault.data.hash = "0".repeat(64);
    const editedEntry = await resigned(files, { "audit-chain.json": new TextEncoder().encode(JSON.stringify(chain)) });
    const entryVerdict = await verifyEvidence(editedEntry, sha);
    expect(entryVerdict.verified).toBe(false);
    expect(!entryVerdict.verified && entryVerdict.broken).toContain(`audit entry seq ${vault.seq} (envelope.vault`);
    expect(!entryVerdict.verified && entryVerdict.broken).toContain("altered");

    // the first entry removed
    const shortened = JSON.parse(new TextDecoder().decode(files["audit-chain.json"]));
    shortened.entries.splice(0, 1);
    const removed = await verifyEvidence(await resigned(files, { "audit-chain.json": new TextEncoder().encode(JSON.stringify(shortened)) }), sha);
    expect(!removed.verified && removed.broken).toMatch(/^audit entry seq 2 .*expected sequence number 1/);

    // one byte of the PDF changed
    const pdf = files["document.pdf"]!.slice();
    pdf[20] = pdf[20] === 0x41 ? 0x42 : 0x41;
    const pdfVerdict = await verifyEvidence({ ...files, "document.pdf": pdf }, sha);
    expect(pdfVerdict.verified).toBe(false);
    expect(!pdfVerdict.verified && pdfVerdict.broken).toMatch(/^file document\.pdf: SHA-256 [0-9a-f]{64}, but the signed manifest states [0-9a-f]{64}/);
  });

  it("answers 404 before vaulting, needs vault:read (403), makes a new bundle once the chain has grown, and never serves an altered one", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key, {}, await sealedPdf());
    expect((await evidenceUrl(t.key, e.envelope_id)).status).toBe(404);
    await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} });
    const complianceOnly = await newKey(t.orgId, ["compliance:read", "envelopes:read"]);
    expect((await evidenceUrl(complianceOnly.key, e.envelope_id)).status).toBe(403);
    expect((await evidenceUrl((await newTenant()).key, e.envelope_id)).status).toBe(404);
    for (const q of ["59", "86401"]) expect((await evidenceUrl(t.key, e.envelope_id, `?expires=${q}`)).status).toBe(400);

    const first = await fetchBundle(t.key, e.envelope_id);
    // the chain gains an entry that is not a bundle's (a re-issued certificate): a fresh bundle covers it and lists the first
    const { appendEnvelopeAudit } = await import("../../../../src/services/envelopes/append-audit");
    const { jobContextOf } = await import("../../../helpers/context");
    await appendEnvelopeAudit(jobContextOf(e.envelope_id), {
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
    const record = await shardDbOf(e.envelope_id).prepare("SELECT id FROM vault_records WHERE envelope_id = ?").bind(e.envelope_id).first<{ id: string }>();
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

describe("the evidence bundle's control history and attestation", () => {
  const party = (name: string) => newTenant({ scopes: [...ALL_SCOPES, "vault:control"], name });
  const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
  const b64url = (value: unknown) => btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const jsonPart = (part: string) => JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(part.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0))));

  async function transferred() {
    const [a, b, c] = await Promise.all([party("Dealer"), party("Bank"), party("Warehouse")]);
    const e = await completedEnvelope(a.key, {}, await sealedPdf());
    const vaultIn = await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: a.key, body: {} });
    const vaultId = vaultIn.body.data.vault_id as string;
    for (const [from, to, kind] of [[a, b, "assignment"], [b, c, "pledge"]] as const) {
      const offer = await call("POST", `/partner/vault/${vaultId}/transfers`, { key: from.key, body: { kind, to_org_id: to.orgId } });
      expect(offer.status).toBe(201);
      expect((await call("POST", `/partner/vault/transfers/${offer.body.data.transfer_id}/accept`, { key: to.key })).status).toBe(200);
    }
    return { a, b, c, e, vaultId };
  }

  it("packs the control history and the attestation over the chain it carries, and the verifier checks both", async () => {
    const { a, b, c, e, vaultId } = await transferred();
    // a party that is not the envelope's organization gets the bundle on the vault path
    const res = await call("GET", `/partner/vault/${vaultId}/evidence/signed-url`, { key: b.key });
    expect(res.status).toBe(200);
    const files = unzipSync((await download(res.body.data.signed_url)).bytes);
    const history = JSON.parse(text(files["control-history.json"]));
    const live = await call("GET", `/partner/vault/${vaultId}/control-history`, { key: c.key });
    expect(history).toEqual(live.body);
    expect(history.data.map((h: { action: string }) => h.action)).toEqual([
      "vault.transfer_requested",
      "vault.control_transferred",
      "vault.transfer_requested",
      "vault.control_transferred",
    ]);

    const manifest = JSON.parse(text(files["manifest.json"]));
    const chain = JSON.parse(text(files["audit-chain.json"]));
    const [, payload] = text(files["attestation.jws"]).trim().split(".");
    expect(jsonPart(payload!)).toMatchObject({
      vault_id: vaultId,
      document_hash: manifest.document.sha256,
      chain_head: chain.head_hash,
      history_length: 4,
      controller: { org_id: c.orgId },
      pledgor: { org_id: b.orgId },
    });
    const verdict = await verifyEvidence(files, sha);
    expect(verdict, verdict.verified ? "" : verdict.broken).toMatchObject({ verified: true });
    expect(verdict.checks.join("\n")).toContain("control history: 4 control entries match the audit chain");
    expect(verdict.checks.join("\n")).toMatch(/attestation: (RS256|ES256|ES384) signature verifies against its x5c certificate/);
    // the originator's envelope path serves the same bundle (nothing new on the chain since)
    const viaEnvelope = await fetchBundle(a.key, e.envelope_id);
    expect(text(viaEnvelope.files["control-history.json"])).toBe(text(files["control-history.json"]));
  });

  it("refuses a bundle whose control history or attestation was tampered with", async () => {
    const { b, c, vaultId } = await transferred();
    const res = await call("GET", `/partner/vault/${vaultId}/evidence/signed-url`, { key: c.key });
    const files = unzipSync((await download(res.body.data.signed_url)).bytes);
    expect(await verifyEvidence(files, sha)).toMatchObject({ verified: true });
    const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

    // the history rewritten: the assignment said to come from someone else
    const history = JSON.parse(text(files["control-history.json"]));
    history.data[1].from_org_id = b.orgId;
    const rewritten = await verifyEvidence(await resigned(files, { "control-history.json": enc(history) }), sha);
    expect(rewritten.verified).toBe(false);
    expect(!rewritten.verified && rewritten.broken).toMatch(/^control history: entry 2 \(seq \d+, vault\.control_transferred\) does not match audit entry/);

    // a control step dropped from the history
    const dropped = JSON.parse(text(files["control-history.json"]));
    dropped.data.pop();
    const short = await verifyEvidence(await resigned(files, { "control-history.json": enc(dropped) }), sha);
    expect(!short.verified && short.broken).toMatch(/^control history: the audit chain's control entry seq \d+ \(vault\.control_transferred\) is missing/);

    // the attestation's payload changed (the signature no longer covers it)
    const [h, p, s] = text(files["attestation.jws"]).trim().split(".");
    const claims = jsonPart(p!);
    const swapped = await verifyEvidence(await resigned(files, { "attestation.jws": new TextEncoder().encode(`${h}.${b64url({ ...claims, iat: claims.iat + 1 })}.${s}`) }), sha);
    expect(!swapped.verified && swapped.broken).toBe("attestation: its signature does not verify against the key of its x5c certificate");
    // a payload naming another controller is refused before its signature is even checked
    const lying = await verifyEvidence(await resigned(files, { "attestation.jws": new TextEncoder().encode(`${h}.${b64url({ ...claims, controller: { org_id: b.orgId, name: "Bank" } })}.${s}`) }), sha);
    expect(!lying.verified && lying.broken).toBe(`attestation: it names controller ${b.orgId}, the audit chain leads to ${claims.controller.org_id}`);
    // the attestation removed while the manifest lists it
    const { ["attestation.jws"]: _gone, ...without } = files;
    const missing = await verifyEvidence(without, sha);
    expect(!missing.verified && missing.broken).toBe("file attestation.jws: listed in the manifest but missing from the bundle");
  });
});
