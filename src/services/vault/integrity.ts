import { newId } from "../../lib/ids";
import { SYSTEM_ACTOR } from "../../lib/actor";
import { appendEnvelopeAudit } from "../audit/envelope-chain";
import { chainRowsStatement, verifyChain, verifyChainRows, type ChainRow } from "../audit/verify-chain";
import { factsFrom, runChecks, type ComplianceFacts } from "../compliance/evaluate";
import type { RequestContext } from "../../lib/context";
import type { EnvelopeRow } from "../envelopes/repository";
import { envelopeEventData } from "../envelopes/serialize";
import { outboxInsert } from "../events/outbox";
import { compliantSince, issueCertificate, sameOutcomes, type Certificate, type IssuedCertificate } from "./certificate";
import { sha256OfStream } from "./hashing";
import { lastIntegrityMatched, latestCertificate, type CertificateRow, type VaultRecordRow } from "./repository";

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
      const { facts, current, outcomeChanged, checksChanged } = await assess(db, envelope, record, matched);
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

/** What recording a check would change, judged on the state as read now. */
type Assessment = { facts: ComplianceFacts; current: CertificateRow | null; previous: boolean | null; outcomeChanged: boolean; checksChanged: boolean };

async function assess(db: D1Database, envelope: EnvelopeRow, record: VaultRecordRow, matched: boolean): Promise<Assessment> {
  const [previous, chain, current] = await Promise.all([
    lastIntegrityMatched(db, record.id),
    verifyChain(db, envelope.id),
    latestCertificate(db, envelope.id),
  ]);
  return judge({ envelope, record, matched, previous, current, chainVerified: chain.verified });
}

/** The one judgement of a check, on a state however it was read (one check's reads, or a sweep's batch). */
function judge(input: { envelope: EnvelopeRow; record: VaultRecordRow; matched: boolean; previous: boolean | null; current: CertificateRow | null; chainVerified: boolean }): Assessment {
  const { envelope, record, matched, previous, current } = input;
  const facts = factsFrom(
    envelope,
    { vaultId: record.id, documentHash: record.document_hash, custodianOrgId: record.custodian_org_id, copyMarked: record.copy_marked === 1, lastIntegrityMatched: matched },
    input.chainVerified,
  );
  return {
    facts,
    current,
    previous,
    outcomeChanged: previous !== matched,
    checksChanged: !current || !sameOutcomes((JSON.parse(current.body) as Certificate).ucc_9105_compliance.checks, runChecks(facts)),
  };
}

/**
 * A check judged before it is recorded. `quiet` when, on the state read, recording it adds its row and
 * nothing else (the same outcome as the previous check, the same 8 checks as the current certificate):
 * the common case of a sweep. `guard` is that state, which the row's INSERT re-asserts when written.
 */
export type AssessedCheck = {
  record: VaultRecordRow;
  observed: Observation;
  matched: boolean;
  quiet: boolean;
  guard: { previous: boolean | null; certificateVersion: number | null; auditSeq: number } | null;
};

/** Reads what recording `observed` for `record` would change (no write). */
export async function assessIntegrityCheck(ctx: RequestContext, input: IntegrityObservation): Promise<AssessedCheck> {
  return (await assessIntegrityChecks(ctx, { checks: [input] }))[0]!;
}

export type IntegrityObservation = { record: VaultRecordRow; observed: Observation };

/**
 * assessIntegrityCheck for many checks with one D1 round trip: each check's envelope, previous
 * outcome, current certificate and audit chain are read in one `db.batch` (one consistent snapshot),
 * the chain verified from the rows read (verifyChainRows), and each judged as recordIntegrityCheck would.
 */
export async function assessIntegrityChecks(ctx: RequestContext, input: { checks: IntegrityObservation[] }): Promise<AssessedCheck[]> {
  const states = await readIntegrityStates(ctx, { records: input.checks.map((c) => c.record) });
  return judgeIntegrityChecks(states, input.checks);
}

/** What judging a check needs, read for each of `records` in order (one `db.batch`, no write). */
export type IntegrityStates = { results: D1Result<Record<string, unknown>>[] };

/**
 * The reads of assessIntegrityChecks alone: they do not depend on the hash, so the sweep issues them
 * while its documents are still being hashed. The recording re-asserts this state (see recordIntegrityChecks).
 */
export async function readIntegrityStates(ctx: RequestContext, input: { records: VaultRecordRow[] }): Promise<IntegrityStates> {
  const db = ctx.env.DB;
  if (input.records.length === 0) return { results: [] };
  const statements = input.records.flatMap((record) => [
    db.prepare("SELECT * FROM envelopes WHERE id = ? AND org_id = ?").bind(record.envelope_id, record.org_id),
    db.prepare("SELECT matched FROM vault_integrity_checks WHERE vault_id = ? ORDER BY checked_at DESC, rowid DESC LIMIT 1").bind(record.id),
    db
      .prepare("SELECT id, envelope_id, vault_id, version, body, compliant, issued_at FROM vault_certificates WHERE envelope_id = ? ORDER BY version DESC LIMIT 1")
      .bind(record.envelope_id),
    chainRowsStatement(db, record.envelope_id),
  ]);
  return { results: await db.batch<Record<string, unknown>>(statements) };
}

/** Judges `checks` (the i-th for the i-th record read into `states`; a prefix of them is fine). */
export async function judgeIntegrityChecks(states: IntegrityStates, checks: IntegrityObservation[]): Promise<AssessedCheck[]> {
  const read = states.results;
  return Promise.all(
    checks.map(async ({ record, observed }, i) => {
      const matched = observed.hash === record.document_hash;
      const envelope = read[4 * i]!.results[0] as EnvelopeRow | undefined;
      // No envelope: recordIntegrityCheck reports it as it always has.
      if (!envelope) return { record, observed, matched, quiet: false, guard: null };
      const last = read[4 * i + 1]!.results[0] as { matched: number } | undefined;
      const previous = last ? last.matched === 1 : null;
      const current = (read[4 * i + 2]!.results[0] as CertificateRow | undefined) ?? null;
      const chain = await verifyChainRows(read[4 * i + 3]!.results as ChainRow[], envelope.audit_seq);
      const { outcomeChanged, checksChanged } = judge({ envelope, record, matched, previous, current, chainVerified: chain.verified });
      const quiet = !outcomeChanged && !checksChanged;
      return { record, observed, matched, quiet, guard: quiet ? { previous, certificateVersion: current?.version ?? null, auditSeq: envelope.audit_seq } : null };
    }),
  );
}

/**
 * Records many assessed checks (a sweep's round) with one D1 batch for the quiet ones. A check that
 * changes something (a tamper detection, a restored object, a certificate to re-issue) goes through
 * recordIntegrityCheck on its own, as a single check would: same audit entry, event and certificate.
 * The quiet rows go in one `db.batch` with `alongside` (the sweep's cursor), each INSERT guarded by
 * the state it was judged on (the envelope's previous outcome, certificate version and audit chain
 * length): a row whose state changed meanwhile (a download recorded a tamper in between) is not
 * written by the batch but recorded afterwards through recordIntegrityCheck, which judges it again.
 */
export async function recordIntegrityChecks(
  ctx: RequestContext,
  input: { source: IntegritySource; checks: AssessedCheck[]; alongside?: D1PreparedStatement[] },
): Promise<void> {
  const { source, checks, alongside = [] } = input;
  const db = ctx.env.DB;
  for (const c of checks) {
    if (!c.quiet) await recordIntegrityCheck(ctx, { record: c.record, source, observed: c.observed });
  }
  const quiet = checks.filter((c) => c.quiet && c.guard);
  if (quiet.length === 0 && alongside.length === 0) return;
  const at = new Date().toISOString();
  const inserts = quiet.map(({ record, observed, matched, guard }) =>
    db
      .prepare(
        `INSERT INTO vault_integrity_checks (id, vault_id, envelope_id, org_id, source, matched, expected_hash, observed_hash, observed_size_bytes, checked_at)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
         WHERE (SELECT matched FROM vault_integrity_checks WHERE envelope_id = ? ORDER BY checked_at DESC, rowid DESC LIMIT 1) IS ?
           AND (SELECT MAX(version) FROM vault_certificates WHERE envelope_id = ?) IS ?
           AND (SELECT audit_seq FROM envelopes WHERE id = ?) = ?`,
      )
      .bind(
        newId("integrityCheck"), record.id, record.envelope_id, record.org_id, source, matched ? 1 : 0, record.document_hash, observed.hash, observed.size, at,
        record.envelope_id, guard!.previous === null ? null : guard!.previous ? 1 : 0,
        record.envelope_id, guard!.certificateVersion,
        record.envelope_id, guard!.auditSeq,
      ),
  );
  const results = await db.batch([...inserts, ...alongside]);
  for (let i = 0; i < quiet.length; i++) {
    if (results[i]!.meta.changes === 0) await recordIntegrityCheck(ctx, { record: quiet[i]!.record, source, observed: quiet[i]!.observed });
  }
}
