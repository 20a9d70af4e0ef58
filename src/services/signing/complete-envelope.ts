import { newShardId, type ShardDb } from "../../lib/shards";
import { radioStamp, sealWithEvidence, type EvidenceLevel } from "../../pdf";
import type { RequestContext } from "../../lib/context";
import { discardDocuments } from "../documents/ingest-pdf";
import { putParts } from "../vault/hashing";
import type { SignerRow } from "../signers/repository";
import { signingProvider, viaProvider } from "../../providers/signing";
import type { CertificateSigner, Stamp } from "../../providers/signing/interface";
import { drawnImageKey, publicValue } from "./field-values";
import { areasOf, optionsOf, type EnvelopeFieldRow, type SigningContext } from "./repository";
import type { RequestOrigin } from "../signers/signer-actor";
import { otpCertificateLines } from "../otp/certificate-lines";
import { attachmentOf } from "../attachments/value";
import { kbaCertificateLines } from "../kba/certificate-lines";
import { findOriginalDocument, signedDocumentInsert } from "../documents/repository";
import { listSignerCompletionOrigins } from "../audit/repository";

export type SignedDocument = {
  key: string;
  sha256: string;
  sizeBytes: number;
  pageCount: number;
  stampedSha256: string;
  /** the PAdES level the seal reached, the configuration's target, and why it fell short (an outage: the raising job retries) */
  evidence: { level: EvidenceLevel; target: EvidenceLevel; shortfall?: string };
  statement: D1PreparedStatement;
};

/**
 * Builds the signed document for the last signer's submit, before anything is committed: stamps every
 * field's final value (`fields` already carries this submit's values) at its areas, appends the
 * certificate page, seals it (PAdES, src/pdf/seal), and writes the result to R2 under a fresh key, so a losing or failed attempt
 * leaves at most an orphan object and never overwrites a committed one. Returns the `signed`
 * envelope_documents INSERT for the caller's batch.
 */
export async function buildSignedDocument(
  ctx: RequestContext,
  sc: SigningContext,
  input: { fields: EnvelopeFieldRow[]; images: Map<string, Uint8Array>; completedAt: string; lastSigner: { id: string; origin: RequestOrigin } },
): Promise<SignedDocument> {
  const { env } = ctx;
  const original = await findOriginalDocument(ctx.db, sc.envelope.id);
  const object = original ? await env.DOCS.get(original.r2_key) : null;
  if (!original || !object) throw new Error(`envelope ${sc.envelope.id} has no original document in R2`);
  const originalBytes = new Uint8Array(await object.arrayBuffer());

  const stamps: Stamp[] = [];
  for (const field of input.fields) {
    if (field.value === null || field.value === "") continue;
    const areas = areasOf(field);
    const drawn = drawnImageKey(field, { orgId: sc.envelope.org_id, envelopeId: sc.envelope.id, signerId: sc.signers.find((s) => s.role === field.role)?.id });
    if (drawn !== null) {
      const png = input.images.get(field.name) ?? (await readImage(ctx, drawn));
      if (png) stamps.push({ areas, value: { kind: "image", png } });
      continue;
    }
    // an attachment: its file travels beside the document (certificate, evidence bundle); the field names it
    if (field.type === "attachment") {
      const a = attachmentOf(field);
      if (a) stamps.push({ areas, value: { kind: "text", text: `Attached: ${a.filename}` } });
      continue;
    }
    // Not this signer's own drawing: whatever it looks like, it is text.
    const shown = field.value.startsWith("image:") ? field.value : publicValue(field);
    if (field.type === "checkbox") {
      if (shown === true) stamps.push({ areas, value: { kind: "check" } });
    } else if (field.type === "radio") {
      stamps.push(radioStamp(areas, optionsOf(field), String(shown)));
    } else if (typeof shown === "object" && shown !== null && "text" in shown) {
      stamps.push({ areas, value: { kind: "text", text: String((shown as { text: string }).text), script: true } });
    } else {
      stamps.push({ areas, value: { kind: "text", text: String(shown) } });
    }
  }
  const signers = await certificateSigners(ctx.db, sc.signers, input);
  // each signer's attachments, hashed, on the certificate beside them
  for (const [i, s] of sc.signers.entries()) {
    const files = input.fields.filter((f) => f.role === s.role).map((f) => [f.name, attachmentOf(f)] as const).filter(([, a]) => a !== null);
    if (files.length) signers[i]!.attachments = files.map(([name, a]) => `${name}: ${a!.filename} (${a!.content_type}, ${a!.size} bytes, SHA-256 ${a!.sha256})`);
  }
  const provider = signingProvider(env);
  const { parts, pageCount, stampedSha256 } = await viaProvider("render the signed document", () =>
    provider.renderSignedDocument({
      original: originalBytes,
      stamps,
      certificate: { envelopeId: sc.envelope.id, envelopeName: sc.envelope.name, completedAt: input.completedAt, originalSha256: original.sha256, signers },
    }),
  );
  // The seal comes last: the stored (and later vaulted) file is the sealed one, and its hash is the sealed file's.
  // Every step appended an incremental update to the original bytes: the file is stored and hashed
  // from its parts, never joined (a 50 MB original costs little more than itself).
  // docs/evidence.md: as high a level as the configuration allows; a TSA or OCSP outage never fails the
  // submit (the level reached is recorded and jobs/raise-evidence.ts raises it before vaulting).
  const outcome = await sealWithEvidence(env, parts, { signingTime: new Date(input.completedAt) });
  const { parts: sealed, sha256 } = outcome;
  const evidence = { level: outcome.level, target: outcome.target, ...(outcome.shortfall ? { shortfall: outcome.shortfall } : {}) };
  if (outcome.shortfall) console.warn(JSON.stringify({ level: "warn", msg: "seal below its target evidence level; the raising job will retry", envelope_id: sc.envelope.id, evidence_level: outcome.level, target: outcome.target, shortfall: outcome.shortfall }));
  // the R2 key's id part only names the object; the row's id is tagged with the envelope's shard (ctx's)
  const key = `documents/${sc.envelope.org_id}/${newShardId("document", ctx.shardId)}-signed.pdf`;
  await putParts(env.DOCS, key, sealed, { httpMetadata: { contentType: "application/pdf" }, sha256 });
  const stored = { sha256, sizeBytes: sealed.reduce((n, p) => n + p.byteLength, 0) };
  const statement = signedDocumentInsert(ctx.db, {
    id: newShardId("document", ctx.shardId),
    envelopeId: sc.envelope.id,
    orgId: sc.envelope.org_id,
    key,
    sha256: stored.sha256,
    sizeBytes: stored.sizeBytes,
    pageCount,
    at: input.completedAt,
    evidenceLevel: evidence.level,
  });
  return { key, ...stored, pageCount, stampedSha256, evidence, statement };
}

export const discardSigned = (ctx: RequestContext, ...keys: string[]) => (keys.length ? discardDocuments(ctx.env, keys) : Promise.resolve());

async function readImage(ctx: RequestContext, key: string): Promise<Uint8Array | null> {
  const obj = await ctx.env.DOCS.get(key);
  return obj ? new Uint8Array(await obj.arrayBuffer()) : null;
}

/** Each signer's IP and user agent are those of their completing request, as the audit log recorded them. */
async function certificateSigners(
  db: ShardDb,
  signers: SignerRow[],
  input: { completedAt: string; lastSigner: { id: string; origin: RequestOrigin } },
): Promise<CertificateSigner[]> {
  const ids = signers.map((s) => s.id);
  // on the envelope's own chain (the chain index), never a scan of every organization's audit log
  const results = await listSignerCompletionOrigins(db, signers[0]?.envelope_id ?? "", ids);
  const byId = new Map(results.map((r) => [r.actor_id, r]));
  const kba = signers.length ? await kbaCertificateLines(db, signers[0]!.envelope_id) : new Map<string, string>();
  const otp = await otpCertificateLines(db, signers);
  const verification = (id: string) => [kba.get(id), otp.get(id)].filter((line): line is string => !!line).join("; ");
  return signers.map((s) => {
    const last = s.id === input.lastSigner.id;
    const seen = byId.get(s.id);
    return {
      name: s.name,
      email: s.email,
      role: s.role,
      routing_order: s.routing_order,
      ip: last ? input.lastSigner.origin.ip : (seen?.ip ?? null),
      user_agent: last ? input.lastSigner.origin.userAgent : (seen?.user_agent ?? null),
      viewed_at: s.viewed_at ?? (last ? input.completedAt : null),
      signed_at: last ? input.completedAt : s.signed_at,
      ...(verification(s.id) ? { identity_verification: verification(s.id) } : {}),
    };
  });
}
