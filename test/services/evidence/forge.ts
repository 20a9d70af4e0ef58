import { env } from "cloudflare:test";
import { unzipSync } from "fflate";
import { CompactSign } from "jose";
import { expect } from "vitest";
import type { Env } from "../../../src/env";
import { canonicalJson } from "../../../src/lib/crypto";
import { loadSealKey, type SealKey } from "../../../src/pdf";
import { attestationAlg, signAttestation } from "../../../src/services/evidence/attestation";
import { MANIFEST_TYP } from "../../../src/services/evidence/build-bundle";
import { call } from "../../helpers/api";
import { sha256Hex } from "../../helpers/pdf";
import { sentTwoSignerEnvelope, signing, TINY_PNG } from "../../helpers/signing-flow";
import { download } from "../../helpers/vault";

export type Files = Record<string, Uint8Array>;

const enc = (value: string) => new TextEncoder().encode(value);
const dec = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
const pretty = (value: unknown) => enc(`${JSON.stringify(value, null, 2)}\n`);
const b64 = (der: Uint8Array) => btoa(String.fromCharCode(...der));

/** The SHA-256 of a PEM's first certificate: the fingerprint an auditor pins. */
export async function fingerprint(pem: string): Promise<string> {
  const body = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END/.exec(pem.replace(/\\n/g, "\n"))![1]!.replace(/\s+/g, "");
  return sha256Hex(Uint8Array.from(atob(body), (c) => c.charCodeAt(0)));
}

/** The service's seal (the test run's) and another one: the CA-issued seal of the evidence-level tests. */
export const serviceSeal = () => loadSealKey(env);
export const otherSeal = () => loadSealKey({ ...env, SEAL_PRIVATE_KEY: env.TEST_LT_SEAL_PRIVATE_KEY, SEAL_CERTIFICATE: env.TEST_LT_SEAL_CERTIFICATE } as Env);
export const servicePin = () => fingerprint(env.SEAL_CERTIFICATE!);
export const otherPin = () => fingerprint(env.TEST_LT_SEAL_CERTIFICATE);

/** An envelope signed through the signing flow (its PDF sealed), vaulted, and its evidence bundle unzipped. */
export async function sealedBundle(key: string) {
  const e = await sentTwoSignerEnvelope(key);
  expect((await signing("POST", e.buyer, "submit", { values: { buyer_signature: TINY_PNG, buyer_name: "Ann Buyer" } })).status).toBe(200);
  expect((await signing("POST", e.cosigner, "submit", { values: { cosigner_signature: "Cole Signer" } })).status).toBe(200);
  expect((await call("POST", `/partner/envelopes/${e.envelopeId}/vault-in-signed`, { key, body: {} })).status).toBe(200);
  return { envelopeId: e.envelopeId, files: await bundleOf(key, e.envelopeId) };
}

export async function bundleOf(key: string, envelopeId: string): Promise<Files> {
  const res = await call("GET", `/partner/envelopes/${envelopeId}/vault/evidence/signed-url`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const file = await download(res.body.data.signed_url);
  expect(file.status).toBe(200);
  return unzipSync(file.bytes);
}

/** A manifest.jws over `manifest` (its exact bytes) by `seal`, as the service signs one. */
export async function signManifest(manifest: Uint8Array, seal: SealKey): Promise<Uint8Array> {
  const jws = await new CompactSign(manifest)
    .setProtectedHeader({ alg: attestationAlg(seal.privateKey), typ: MANIFEST_TYP, x5c: seal.chainDer.map(b64) })
    .sign(seal.privateKey);
  return enc(`${jws}\n`);
}

/**
 * A forger's bundle: `edit` changes the files (the document, an audit entry's data, …), then
 * everything that hashes them is recomputed as a careful forger would (the chain's links and hashes,
 * the certificate's and the vault entry's document hash, the attestation, every hash of the manifest),
 * and the manifest is re-signed by `seal` (the attestation too). With the service's own seal this
 * is what the service could sign; with another it is what anyone could.
 */
export async function forge(files: Files, seal: SealKey, edit: (f: { files: Files; chain: any; certificate: any }) => void | Promise<void>): Promise<Files> {
  const out: Files = { ...files };
  const chain = JSON.parse(dec(out["audit-chain.json"]));
  const certificate = JSON.parse(dec(out["certificate.json"]));
  await edit({ files: out, chain, certificate });

  const documentHash = await sha256Hex(out["document.pdf"]!);
  certificate.document_integrity.document_hash = documentHash;
  let prev = "0".repeat(64);
  for (const entry of chain.entries) {
    if (entry.action === "envelope.vault") entry.data.hash = documentHash;
    delete entry.hash;
    entry.prev_hash = prev;
    entry.hash = await sha256Hex(enc(canonicalJson(entry)));
    prev = entry.hash;
  }
  chain.head_hash = prev;
  out["audit-chain.json"] = pretty(chain);
  out["certificate.json"] = pretty(certificate);

  const manifest = JSON.parse(dec(out["manifest.json"]));
  if (out["attestation.jws"]) {
    const payload = JSON.parse(dec(Uint8Array.from(atob(dec(out["attestation.jws"]).trim().split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0))));
    out["attestation.jws"] = enc(`${await signAttestation(seal, { ...payload, document_hash: documentHash, chain_head: prev })}\n`);
  }
  manifest.document.sha256 = documentHash;
  manifest.document.size_bytes = out["document.pdf"]!.byteLength;
  manifest.audit_chain.head_hash = prev;
  manifest.audit_chain.entries = chain.entries.length;
  manifest.seal_certificate.sha256 = await sha256Hex(seal.chainDer[0]!);
  manifest.files = await Promise.all(manifest.files.map(async (f: { name: string }) => ({ ...f, sha256: await sha256Hex(out[f.name]!), size_bytes: out[f.name]!.byteLength })));
  out["manifest.json"] = pretty(manifest);
  out["manifest.jws"] = await signManifest(out["manifest.json"], seal);
  delete out["manifest.tsr"];
  return out;
}
