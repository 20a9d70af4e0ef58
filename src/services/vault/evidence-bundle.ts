import type { OrgContext, RequestContext } from "../../lib/context";
import { ApiError, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { newShardId, shardOf } from "../../lib/shards";
import { appendEnvelopeAudit } from "../envelopes/append-audit";
import { chainRowsStatement, type ChainRow } from "../audit/verify-chain";
import { BUNDLE_VERSION, buildEvidenceBundle, type BundleAttachment, type ChainEntry } from "../evidence/build-bundle";
import { attachmentOf } from "../attachments/value";
import { listSigningFields } from "../documents/repository";
import { actingOrgOf, readKeyHistory } from "../evidence/key-history";
import { openCertificatePdf } from "./certificate";
import { controlAttestation } from "./control-attestation";
import { controlHistory } from "./control-history";
import { putParts, sha256OfStream } from "./hashing";
import { evidenceRecordForChain } from "./evidence-record/current";
import { vaultKeys } from "./keys";
import { latestCertificateFiles, type VaultRecordRow } from "./repository";
import { assertNotDestroyed, findVaultedEnvelope, signVaultUrl } from "./signed-url";
import type { EnvelopeRow } from "../envelopes/repository";
import { sha256Hex, toHex } from "../../lib/crypto";
import { loadSealKey } from "../../pdf";
import { openMarkedCopy } from "./marked-copy";

const BUNDLE_ACTION = "vault.evidence_bundle";

/** Which bundle a party gets (docs/control.md): the authoritative copy's, or the marked copy's. */
export type BundleForm = "authoritative" | "copy";

type BundleFacts = { bundle_id: string; sha256: string; size_bytes: number; covers_seq: number; head_hash: string; bundle_version?: number; form?: BundleForm };

/**
 * The form of bundle an organization gets: the authoritative copy to the controller of the moment, and
 * to nobody once the record was converted to paper (the paper is the original then; the electronic
 * record is not authoritative); a paid-off record stays its controller's (the obligation is satisfied,
 * the record still authoritative). Everyone else (the originator after selling, a pledgor, an
 * organization a transfer is only offered to) gets the marked copy and the authoritative copy's hash.
 */
export function bundleFormFor(record: Pick<VaultRecordRow, "controller_org_id" | "control_status">, orgId: string): BundleForm {
  // a closed record (paid off, converted to paper) hands its authoritative bytes to no one, as its links do
  return record.controller_org_id === orgId && record.control_status === "active" ? "authoritative" : "copy";
}

/** The signed-URL file of each form: `evidence` the controller's, `evidence_copy` everyone else's. */
export const evidenceFileOf = (form: BundleForm) => (form === "authoritative" ? "evidence" : "evidence_copy") as "evidence" | "evidence_copy";

const bundleKey = (record: VaultRecordRow, bundleId: string) => `${vaultKeys(record.org_id, record.envelope_id, record.id).dir}evidence-${bundleId}.zip`;

/** The envelope's audit chain in order (the statement the chain's verification reads), data parsed. */
async function chainEntries(db: D1Database, envelopeId: string): Promise<ChainEntry[]> {
  const { results } = await chainRowsStatement(db, envelopeId).all<ChainRow>();
  return results.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, unknown> }));
}

/** The newest bundle of that form recorded on the chain, if any (bundles before version 3 were all of the authoritative form). */
function latestBundle(entries: ChainEntry[], form: BundleForm): BundleFacts | null {
  const entry = entries.findLast((e) => e.action === BUNDLE_ACTION && ((e.data as BundleFacts).form ?? "authoritative") === form);
  return entry ? (entry.data as BundleFacts) : null;
}

/**
 * GET /partner/envelopes/:id/vault/evidence/signed-url: a signed URL to the envelope's evidence
 * bundle, produced on the first request. A bundle is reused while the chain has gained nothing but
 * bundle entries since it was made; otherwise (a tamper detection, a re-issued certificate) a new one
 * is produced, covering the chain as it now stands. Each production is recorded on the chain
 * (`vault.evidence_bundle`: the ZIP's SHA-256, size and the chain head it covers), so the next
 * bundle's audit chain lists the earlier ones. A bundle whose stored object went missing or was
 * replaced is produced afresh too.
 */
export async function createEvidenceUrl(ctx: OrgContext, input: { envelopeId: string; expiresIn: number }) {
  const vaulted = await findVaultedEnvelope(ctx, input.envelopeId);
  return createPartyEvidenceUrl(ctx, { ...vaulted, expiresIn: input.expiresIn });
}

/**
 * The signed URL of the caller's form of the bundle (bundleFormFor), produced first when needed. The
 * caller has checked that the organization is a party of the record.
 */
export async function createPartyEvidenceUrl(ctx: OrgContext, input: { record: VaultRecordRow; envelope: Pick<EnvelopeRow, "id" | "name" | "org_id">; expiresIn: number }) {
  const form = bundleFormFor(input.record, ctx.orgId);
  assertNotDestroyed(input.record, evidenceFileOf(form));
  await ensureEvidenceBundle(ctx, { record: input.record, envelope: input.envelope, form });
  return signVaultUrl(ctx.env, { record: input.record, envelope: input.envelope, file: evidenceFileOf(form), expiresIn: input.expiresIn, controllerOrgId: ctx.orgId });
}

/** Where in a PDF an incremental update could begin: just after each end-of-file marker. */
function revisionEnds(pdf: Uint8Array): number[] {
  const text = new TextDecoder("latin1").decode(pdf);
  const ends: number[] = [];
  for (let at = text.indexOf("%%EOF"); at >= 0; at = text.indexOf("%%EOF", at + 5)) {
    let end = at + 5;
    while (end < pdf.length && (pdf[end] === 0x0d || pdf[end] === 0x0a)) end++;
    ends.push(at + 5, end);
  }
  return [...new Set(ends)];
}

/**
 * The marked copy for a non-controller's bundle, or null when the stored copy still begins with the
 * authoritative copy (a copy made as an incremental update over it, before copies were re-serialized):
 * such a copy would hand over the authoritative bytes, so the bundle goes without a PDF and says so.
 */
async function separableCopy(ctx: RequestContext, record: VaultRecordRow): Promise<Uint8Array | null> {
  // a copy made before copies were re-serialized is made again first (./marked-copy.ts)
  const copy = new Uint8Array(await new Response((await openMarkedCopy(ctx, record)).body).arrayBuffer());
  for (const end of revisionEnds(copy)) {
    if (end === record.size_bytes && (await sha256Hex(copy.subarray(0, end))) === record.document_hash) {
      console.error(JSON.stringify({ level: "warn", msg: "marked copy begins with the authoritative copy; bundle carries no PDF", vault_id: record.id }));
      return null;
    }
  }
  return copy;
}

/**
 * The files the envelope's signers attached, read back and checked against the SHA-256 their audit
 * entries and the certificate state: a file that no longer matches is a 409, never a bundle vouching
 * for other bytes.
 */
async function bundleAttachments(ctx: RequestContext, envelopeId: string): Promise<BundleAttachment[]> {
  const out: BundleAttachment[] = [];
  for (const field of await listSigningFields(ctx.db, envelopeId)) {
    const a = attachmentOf(field);
    if (!a) continue;
    const object = await ctx.env.DOCS.get(a.key);
    const bytes = object ? new Uint8Array(await object.arrayBuffer()) : null;
    if (!bytes || (await sha256Hex(bytes)) !== a.sha256) {
      throw new ApiError(409, `The file attached to ${field.name} failed its integrity check: no evidence bundle is produced from bytes that no longer match the SHA-256 recorded at upload`, { field: field.name }, "integrity_check_failed");
    }
    out.push({ field: field.name, role: field.role, filename: a.filename, content_type: a.content_type, sha256: a.sha256, bytes });
  }
  return out;
}

/**
 * The record's current evidence bundle, produced when there is none covering the chain as it stands
 * (see createEvidenceUrl). The caller has checked that it may have it: the envelope's organization on
 * the envelope path, any party of the record on /partner/vault/:vault_id/evidence/signed-url. The
 * bundle's entry goes on the envelope's chain under the envelope's organization, by the caller's actor.
 */
export async function ensureEvidenceBundle(
  ctx: RequestContext,
  input: { record: VaultRecordRow; envelope: Pick<EnvelopeRow, "id" | "name" | "org_id">; form: BundleForm },
): Promise<BundleFacts> {
  const { record, envelope, form } = input;
  const entries = await chainEntries(ctx.db, envelope.id);
  const latest = latestBundle(entries, form);
  // bundles of an older format are never reused: a current one is produced instead
  if (latest && (latest.bundle_version ?? 1) >= BUNDLE_VERSION && entries.every((e) => e.seq <= latest.covers_seq || e.action === BUNDLE_ACTION)) {
    // reused only while its object is still the one stored (R2 keeps the SHA-256 it verified on write)
    const stored = await ctx.env.DOCS.head(bundleKey(record, latest.bundle_id));
    const checksum = stored?.checksums.sha256;
    if (checksum && toHex(checksum) === latest.sha256) return latest;
  }

  // The authoritative copy's bytes are read for the controller's bundle only.
  const object = form === "authoritative" ? await ctx.env.DOCS.get(record.authoritative_key) : null;
  const document = object ? new Uint8Array(await object.arrayBuffer()) : null;
  if (form === "authoritative" && (!document || (await sha256Hex(document)) !== record.document_hash)) {
    throw new ApiError(
      409,
      "The vaulted document failed its integrity check: no evidence bundle is produced from bytes that no longer match the SHA-256 recorded at vaulting",
      undefined,
      "integrity_check_failed",
    );
  }
  const cert = await latestCertificateFiles(ctx.db, envelope.id);
  if (!cert) throw new ApiError(404, "Compliance certificate not found: it is generated when the envelope is vaulted");
  // rendered now from its JSON if the version was issued without its PDF (a pool's move)
  const certPdf = await openCertificatePdf(ctx.env, cert);
  const producedAt = new Date();
  // The manifest is signed with the seal key: no seal configured (or unusable) is a 503 naming the
  // variable, never an unsigned bundle (docs/decisions/signed-evidence-bundle.md).
  const seal = await loadSealKey(ctx.env);
  // The control attestation over the entries packed, by the same key.
  const { jws: attestation } = await controlAttestation(ctx.env, ctx, { envelopeId: envelope.id, entries, at: producedAt });
  // The key history of every organization that acted on control, and of the controller.
  const actors = entries.map((e) => actingOrgOf(e)).filter((o): o is string => o !== null);
  const keyHistory = await readKeyHistory(ctx.global, [...actors, record.org_id, record.controller_org_id]);
  const copy = form === "copy" ? await separableCopy(ctx, record) : null;
  const attachments = await bundleAttachments(ctx, envelope.id);

  const built = await buildEvidenceBundle({
    envelope: { id: envelope.id, name: envelope.name },
    vaultId: record.id,
    source: record.source,
    form,
    document: { bytes: document, sha256: record.document_hash, sizeBytes: record.size_bytes },
    copy: copy ? { bytes: copy } : null,
    keyHistory,
    certificate: { json: JSON.parse(cert.body), pdf: new Uint8Array(await new Response(certPdf.body).arrayBuffer()) },
    entries,
    controlHistory: controlHistory(entries),
    attestation,
    producedAt: producedAt.toISOString(),
    evidenceLevel: record.evidence_level,
    seal,
    tsa: ctx.env.SEAL_TSA_URL ? { url: ctx.env.SEAL_TSA_URL } : undefined,
    evidenceRecord: await evidenceRecordForChain(ctx.db, ctx.env.DOCS, record.id, entries),
    attachments,
  });
  const head = entries.at(-1)!;
  const facts: BundleFacts = { bundle_id: newShardId("evidence", shardOf(record.id)), sha256: built.sha256, size_bytes: built.sizeBytes, covers_seq: head.seq, head_hash: head.hash, bundle_version: BUNDLE_VERSION, form };
  const key = bundleKey(record, facts.bundle_id);
  await putParts(ctx.env.DOCS, key, built.parts, {
    httpMetadata: { contentType: "application/zip" },
    customMetadata: { envelope_id: envelope.id, vault_id: record.id, role: "evidence" },
    sha256: built.sha256,
  });
  try {
    await appendEnvelopeAudit(ctx, {
      orgId: envelope.org_id,
      envelopeId: envelope.id,
      actor: ctx.actor,
      build: async () => ({ action: BUNDLE_ACTION, data: facts, statements: [] }),
    });
  } catch (err) {
    await ctx.env.DOCS.delete(key).catch(() => {});
    throw err;
  }
  return facts;
}

/**
 * The newest recorded bundle of a vault record, for its signed download URL. It is re-hashed first and
 * refused (409) unless it still matches the SHA-256 its audit entry recorded; the bytes sent are read
 * with `etagMatches` on the object that was hashed.
 */
export async function openEvidenceBundle(ctx: RequestContext, record: VaultRecordRow, form: BundleForm): Promise<{ body: ReadableStream; size: number }> {
  if (form === "authoritative" && record.control_status === "paper_out") {
    throw new ApiError(409, "The record was converted to paper: its bundle with the electronic authoritative copy is no longer served", { status: record.control_status }, "control_closed");
  }
  const latest = latestBundle(await chainEntries(ctx.db, record.envelope_id), form);
  const key = latest ? bundleKey(record, latest.bundle_id) : null;
  const hashed = key ? await ctx.env.DOCS.get(key) : null;
  if (!latest || !key || !hashed) throw notFound("Evidence bundle");
  if ((await sha256OfStream(hashed.body)) !== latest.sha256) {
    throw new ApiError(409, "The evidence bundle no longer matches the SHA-256 recorded on the audit chain; request a new download URL to produce a fresh one", undefined, "integrity_check_failed");
  }
  const object = await ctx.env.DOCS.get(key, { onlyIf: { etagMatches: hashed.etag } });
  if (!object || !("body" in object)) throw new ApiError(409, "The evidence bundle changed while it was being read; retry the download");
  return { body: object.body, size: object.size };
}
