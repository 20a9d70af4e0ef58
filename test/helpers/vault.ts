import { env, SELF } from "cloudflare:test";
import { call, createEnvelope, operator, type ApiResponse } from "./api";
import { shardDbOf } from "./shards";
import { newShardId, shardOf } from "../../src/lib/shards";
import { send } from "./templates";
import { makePdf, sha256Hex } from "./pdf";

/** POST vault-in-upload as a partner would: multipart with the PDF as `file`. */
export async function uploadPaper(
  key: string,
  envelopeId: string,
  file: Uint8Array | null,
  opts: { signedAt?: string; filename?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const form = new FormData();
  if (file) form.append("file", new File([file], opts.filename ?? "signed.pdf", { type: "application/pdf" }));
  if (opts.signedAt) form.append("signed_at", opts.signedAt);
  return send("POST", `/partner/envelopes/${envelopeId}/vault-in-upload`, key || undefined, form, opts.headers);
}

/** A paper envelope (document_source upload) naming a secured party, so all 8 checks can pass. */
export const paperEnvelope = (key: string, overrides: Record<string, unknown> = {}) =>
  createEnvelope(key, { document_source: "upload", secured_party: { name: "First Auto Finance LLC", role: "lender" }, ...overrides });

/**
 * An e-sign envelope in `completed` with its signed document in R2 and `envelope_documents`, as the
 * signing flow will leave it. The signing flow does not exist yet, so this seeds that state directly:
 * legitimate test setup for the vault, which only reads it.
 */
export async function completedEnvelope(key: string, overrides: Record<string, unknown> = {}, pdf?: Uint8Array) {
  const e = await createEnvelope(key, { secured_party: { name: "First Auto Finance LLC", role: "lender" }, ...overrides });
  const db = shardDbOf(e.envelope_id);
  const row = await db.prepare("SELECT org_id FROM envelopes WHERE id = ?").bind(e.envelope_id).first<{ org_id: string }>();
  const bytes = pdf ?? (await makePdf({ pages: 2, text: `Signed contract ${e.envelope_id}` }));
  const hash = await sha256Hex(bytes);
  const r2Key = `documents/${row!.org_id}/${e.envelope_id}/signed.pdf`;
  await env.DOCS.put(r2Key, bytes);
  await db.batch([
    db.prepare(
      `INSERT INTO envelope_documents (id, envelope_id, org_id, kind, r2_key, sha256, size_bytes, page_count, created_at)
       VALUES (?, ?, ?, 'signed', ?, ?, ?, 2, ?)`,
    ).bind(newShardId("document", shardOf(e.envelope_id)), e.envelope_id, row!.org_id, r2Key, hash, bytes.byteLength, new Date().toISOString()),
    db.prepare("UPDATE envelopes SET status = 'completed', signed_at = ? WHERE id = ?").bind(new Date().toISOString(), e.envelope_id),
  ]);
  return { ...e, envelope_name: e.envelope_name as string, orgId: row!.org_id, bytes, hash, r2Key };
}

/** A signer who signed `envelopeId` (completedEnvelope's envelope has none): their id, for what names one (corrections, copy links). */
export async function signedSigner(envelopeId: string, orgId: string): Promise<{ id: string }> {
  const signer = { id: newShardId("signer", shardOf(envelopeId)) };
  const at = new Date().toISOString();
  await shardDbOf(envelopeId)
    .prepare(
      `INSERT INTO signers (id, envelope_id, org_id, role, email, name, routing_order, status, slug_hash, signed_at, created_at)
       VALUES (?, ?, ?, 'buyer', 'buyer@example.com', 'Buyer', 1, 'completed', ?, ?, ?)`,
    )
    .bind(signer.id, envelopeId, orgId, `sha256:${crypto.randomUUID().replaceAll("-", "")}`, at, at)
    .run();
  return signer;
}

export async function vaultRecord(envelopeId: string) {
  return shardDbOf(envelopeId).prepare("SELECT * FROM vault_records WHERE envelope_id = ?").bind(envelopeId).first<Record<string, any>>();
}

/** Every R2 key under the envelope's vault prefix. */
export async function vaultObjects(orgId: string, envelopeId: string): Promise<string[]> {
  const listed = await env.DOCS.list({ prefix: `vault/${orgId}/${envelopeId}/` });
  return listed.objects.map((o) => o.key);
}

export async function signedUrl(key: string, envelopeId: string, which: "authoritative" | "copy" = "authoritative", query = "") {
  const path = which === "copy" ? "vault/copy/signed-url" : "vault/signed-url";
  return call("GET", `/partner/envelopes/${envelopeId}/${path}${query}`, { key });
}

/** Follows a signed URL (on STORAGE_HOST, served by this Worker). */
export async function download(url: string) {
  const res = await SELF.fetch(url);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, json: () => JSON.parse(new TextDecoder().decode(bytes)) };
}

export async function compliance(key: string, envelopeId: string) {
  return (await call("GET", `/partner/envelopes/${envelopeId}/compliance`, { key })).body.data.compliance;
}

/** A custodian of `orgId` gives the envelope auto-vault consent through the console (the custodian's user id is returned). */
export async function giveAutoVaultConsent(orgId: string, envelopeId: string): Promise<{ status: number; userId: string }> {
  const user = await operator("POST", `/orgs/${orgId}/users`, { email: `custodian-${crypto.randomUUID()}@example.com`, name: "Custodian", role: "custodian" });
  const token = await operator("POST", `/users/${user.body.data.user_id}/access-tokens`, { org_id: orgId });
  const consent = await call("POST", `/envelopes/${envelopeId}/auto-vault-consent`, {
    bearer: token.body.data.access_token,
    body: { auto_vault_enabled: true, acknowledge_authoritative_copy: true },
  });
  return { status: consent.status, userId: user.body.data.user_id };
}
