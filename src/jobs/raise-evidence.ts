import { inOrg, type RequestContext } from "../lib/context";
import { sha256Hex } from "../lib/crypto";
import { newId } from "../lib/ids";
import { raiseSealEvidence } from "../pdf";
import { discardDocuments } from "../services/documents/ingest-pdf";
import { asEvidenceLevel, atLeast, evidenceTarget, levelsBelow, type EvidenceLevel } from "../services/documents/evidence";
import { findSignedDocument, listRaisableSignedDocuments, signedDocumentRaise, type RaisableDocument } from "../services/documents/repository";
import { changeEnvelope } from "../services/envelopes/commit";
import { putParts } from "../services/vault/hashing";
import { findJobCursor, upsertSweepCursor } from "../services/vault/repository";

const JOB = "raise-evidence";
/**
 * Documents raised per run: each may wait on the TSA and OCSP responder (10 s bounds each), so a run
 * during an outage stays well inside the minute.
 */
export const RAISE_EVIDENCE_PER_RUN = 5;

export type RaiseEvidenceRun = {
  target: EvidenceLevel;
  attempted: number;
  raised: { envelopeId: string; from: EvidenceLevel | null; to: EvidenceLevel }[];
  /** documents still below the target after this run, with why (the failing service) */
  short: { envelopeId: string; level: EvidenceLevel | null; shortfall: string }[];
  wrapped: boolean;
};

/**
 * Every minute (docs/evidence.md): raises the signed documents of `completed` envelopes (not yet vaulted)
 * whose seal is below the configuration's target (an outage of the TSA or OCSP responder at
 * completion) by incremental updates (`raiseSealEvidence`: adds only what is missing). The raised
 * file goes to a fresh R2 key (the stored one is never overwritten); the envelope_documents row's key,
 * hash, size and level, and a `document.evidence_raised` entry, commit in one envelope change. That
 * commit advances the envelope's chain, so a vault-in that read the envelope before it fails its own
 * commit and retries on the raised bytes; and a vault-in that committed first makes this change plan
 * nothing (the envelope is no longer `completed`): the vaulted bytes are never the ones replaced.
 *
 * It walks completed envelopes in id order from a cursor in `job_cursors`, RAISE_EVIDENCE_PER_RUN per
 * run, so a document that cannot be raised (its TSA still down) does not starve the others.
 * Configured at B-B (no SEAL_TSA_URL) or without a seal key it does nothing.
 */
export async function raiseEvidenceJob(ctx: RequestContext, now = new Date()): Promise<RaiseEvidenceRun | null> {
  const db = ctx.db;
  let target: EvidenceLevel;
  try {
    target = await evidenceTarget(ctx.env);
  } catch {
    return null; // no usable seal key: sends are refused (503) until it is configured; nothing to raise
  }
  if (target === "B-B") return null;
  const at = now.toISOString();
  const cursor = (await findJobCursor(db, JOB))?.cursor ?? "";
  const docs = await listRaisableSignedDocuments(db, { levels: JSON.stringify(levelsBelow(target)), cursor, limit: RAISE_EVIDENCE_PER_RUN });
  const wrapped = docs.length < RAISE_EVIDENCE_PER_RUN;
  const run: RaiseEvidenceRun = { target, attempted: docs.length, raised: [], short: [], wrapped };
  const failures: string[] = [];
  for (const doc of docs) {
    try {
      const outcome = await raiseOne(ctx, doc);
      if (outcome.committed) run.raised.push({ envelopeId: doc.envelope_id, from: asEvidenceLevel(doc.evidence_level), to: outcome.level });
      if (!atLeast(outcome.level, target)) run.short.push({ envelopeId: doc.envelope_id, level: outcome.level, shortfall: outcome.shortfall ?? "the envelope changed while raising" });
    } catch (err) {
      // storage down for one document must not keep the others, nor the cursor, from moving
      failures.push(`${doc.envelope_id}: ${String(err)}`);
    }
  }
  await upsertSweepCursor(db, { job: JOB, at, completedAt: wrapped ? at : null, cursor: wrapped ? "" : docs[docs.length - 1]!.envelope_id, processed: run.raised.length });
  if (failures.length > 0) throw new Error(`raise-evidence: ${failures.length} document(s) failed: ${failures.join("; ")}`);
  return run;
}

/** Raises one signed document: `committed` false when nothing was added (still short: the TSA or responder is down) or the envelope moved on. */
async function raiseOne(ctx: RequestContext, doc: RaisableDocument): Promise<{ committed: boolean; level: EvidenceLevel; shortfall?: string }> {
  const object = await ctx.env.DOCS.get(doc.r2_key);
  if (!object) throw new Error(`signed document object ${doc.r2_key} is missing`);
  const bytes = new Uint8Array(await object.arrayBuffer());
  // never build on bytes that no longer match their recorded hash (vault-in refuses them too)
  if ((await sha256Hex(bytes)) !== doc.sha256) throw new Error("the signed document no longer matches its recorded SHA-256; not raised");
  const from = asEvidenceLevel(doc.evidence_level);
  const outcome = await raiseSealEvidence(ctx.env, [bytes]);
  if (outcome.sha256 === doc.sha256) {
    if (outcome.shortfall) console.warn(JSON.stringify({ level: "warn", msg: "evidence level not raised", envelope_id: doc.envelope_id, evidence_level: outcome.level, target: outcome.target, shortfall: outcome.shortfall }));
    return { committed: false, level: outcome.level, ...(outcome.shortfall ? { shortfall: outcome.shortfall } : {}) };
  }
  const key = `documents/${doc.org_id}/${newId("document")}-signed.pdf`;
  const sizeBytes = outcome.parts.reduce((n, p) => n + p.byteLength, 0);
  await putParts(ctx.env.DOCS, key, outcome.parts, { httpMetadata: { contentType: "application/pdf" }, sha256: outcome.sha256 });
  const discard = () => discardDocuments(ctx.env, [key]).catch(() => undefined);
  let committed = false;
  try {
    const { result } = await changeEnvelope(inOrg(ctx, doc.org_id), { orgId: doc.org_id, envelopeId: doc.envelope_id }, async (envelope) => {
      // vaulted (or otherwise moved on) since it was read: the vaulted bytes stay what they are
      if (envelope.status !== "completed") return { change: null, result: false };
      const current = await findSignedDocument(ctx.db, envelope.id);
      if (current?.sha256 !== doc.sha256) return { change: null, result: false };
      return {
        change: {
          entries: [
            {
              action: "document.evidence_raised",
              data: {
                from: from ?? "unrecorded",
                to: outcome.level,
                target: outcome.target,
                sha256_before: doc.sha256,
                sha256: outcome.sha256,
                ...(outcome.shortfall ? { shortfall: outcome.shortfall } : {}),
              },
            },
          ],
          statements: [signedDocumentRaise(ctx.db, { envelopeId: envelope.id, fromSha256: doc.sha256, key, sha256: outcome.sha256, sizeBytes, evidenceLevel: outcome.level })],
        },
        result: true,
      };
    });
    committed = result;
  } finally {
    if (!committed) await discard();
  }
  if (!committed) return { committed: false, level: from ?? "B-B" };
  // The replaced file is a byte-prefix of the raised one (incremental updates): nothing is lost with it.
  await discardDocuments(ctx.env, [doc.r2_key]).catch(() => undefined);
  return { committed: true, level: outcome.level, ...(outcome.shortfall ? { shortfall: outcome.shortfall } : {}) };
}
