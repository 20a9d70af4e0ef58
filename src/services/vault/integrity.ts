import { newId } from "../../lib/ids";
import { SYSTEM_ACTOR } from "../../lib/actor";
import { appendEnvelopeAudit } from "../audit/envelope-chain";
import { verifyChain } from "../audit/verify-chain";
import { factsFrom, runChecks } from "../compliance/evaluate";
import type { RequestContext } from "../../lib/context";
import { envelopeEventData } from "../envelopes/serialize";
import { outboxInsert } from "../events/outbox";
import { compliantSince, issueCertificate, sameOutcomes, type Certificate, type IssuedCertificate } from "./certificate";
import { sha256OfStream } from "./hashing";
import { lastIntegrityMatched, latestCertificate, type VaultRecordRow } from "./repository";

export type IntegritySource = "download" | "sweep";

/** What re-reading the authoritative object found: its SHA-256 and size, or nulls when it is gone. */
export type Observation = { hash: string | null; size: number | null; etag: string | null };

/** Re-hashes the stored authoritative copy, streamed through the runtime's digest (never held whole). */
export async function observeAuthoritative(bucket: R2Bucket, record: VaultRecordRow): Promise<Observation> {
  const object = await bucket.get(record.authoritative_key);
  if (!object) return { hash: null, size: null, etag: null };
  return { hash: await sha256OfStream(object.body), size: object.size, etag: object.etag };
}

/**
 * Records one integrity check of an authoritative copy and what follows from it.
 *
 * Every check is a row (the newest decides compliance check 3). When the outcome differs from the
 * previous check's, the change goes on the envelope's audit chain: a mismatch (altered or missing
 * bytes) is `vault.tamper_detected`, with the `vault.tamper_detected` webhook event; a later match
 * (the object restored) is `vault.integrity_restored`. Whenever the 8 checks as they now stand differ
 * from those of the current certificate, a new certificate version is issued in the same batch and
 * the envelope's `compliant` follows it. Repeated identical outcomes add a row and nothing else, so a
 * tampered document downloaded a hundred times raises one tamper event, not a hundred.
 */
export async function recordIntegrityCheck(
  ctx: RequestContext,
  input: { record: VaultRecordRow; source: IntegritySource; observed: Observation },
): Promise<{ matched: boolean }> {
  const { record, source, observed } = input;
  const db = ctx.env.DB;
  const matched = observed.hash === record.document_hash;
  const insertCheck = (at: string) =>
    db
      .prepare(
        `INSERT INTO vault_integrity_checks (id, vault_id, envelope_id, org_id, source, matched, expected_hash, observed_hash, observed_size_bytes, checked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(newId("integrityCheck"), record.id, record.envelope_id, record.org_id, source, matched ? 1 : 0, record.document_hash, observed.hash, observed.size, at);

  let eventId: string | null = null;
  const recorded = await appendEnvelopeAudit(db, {
    orgId: record.org_id,
    envelopeId: record.envelope_id,
    actor: SYSTEM_ACTOR,
    build: async (envelope, at) => {
      eventId = null;
      const [previous, chain, current] = await Promise.all([
        lastIntegrityMatched(db, record.id),
        verifyChain(db, envelope.id),
        latestCertificate(db, envelope.id),
      ]);
      const facts = factsFrom(
        envelope,
        { vaultId: record.id, documentHash: record.document_hash, custodianOrgId: record.custodian_org_id, copyMarked: record.copy_marked === 1, lastIntegrityMatched: matched },
        chain.verified,
      );
      const outcomeChanged = previous !== matched;
      const checksChanged = !current || !sameOutcomes((JSON.parse(current.body) as Certificate).ucc_9105_compliance.checks, runChecks(facts));
      if (!outcomeChanged && !checksChanged) return null;

      const statements = [insertCheck(at)];
      let issued: IssuedCertificate | null = null;
      if (checksChanged) {
        issued = await issueCertificate(ctx.env, { envelope, vaultId: record.id, facts, issuedAt: at, reason: `integrity_check:${source}` });
        statements.push(
          issued.insert(db, (current?.version ?? 0) + 1),
          db.prepare("UPDATE envelopes SET certificate_issued_at = ? WHERE id = ?").bind(compliantSince(issued), envelope.id),
        );
      }
      const detail = {
        vault_id: record.id,
        detected_by: source,
        expected_hash: record.document_hash,
        observed_hash: observed.hash,
        ...(issued ? { certificate_version: (current?.version ?? 0) + 1, compliant: issued.certificate.ucc_9105_compliance.compliant } : {}),
      };
      if (outcomeChanged && !matched) {
        const event = outboxInsert(db, {
          orgId: envelope.org_id,
          envelopeId: envelope.id,
          type: "vault.tamper_detected",
          data: { ...envelopeEventData(envelope), detected_by: source, expected_hash: record.document_hash, observed_hash: observed.hash, detected_at: at },
          at,
        });
        statements.push(event.statement);
        eventId = event.id;
      }
      const action = !outcomeChanged ? "vault.certificate_reissued" : matched ? "vault.integrity_restored" : "vault.tamper_detected";
      return {
        action,
        data: detail,
        statements,
        abandon: issued ? () => ctx.env.DOCS.delete(issued.pdfKey) : undefined,
      };
    },
  });
  if (!recorded) await insertCheck(new Date().toISOString()).run();
  if (eventId) ctx.publish(eventId);
  return { matched };
}
