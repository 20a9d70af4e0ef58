import { newId } from "../../lib/ids";
import { newShardId, shardOf } from "../../lib/shards";
import { SYSTEM_ACTOR } from "../../lib/actor";
import { appendEnvelopeAudit } from "../envelopes/append-audit";
import { chainRowsStatement, readVerifiedChain, verifyChainRows, type ChainRow } from "../audit/verify-chain";
import { controlFactsOf } from "./control-history";
import type { RequestContext } from "../../lib/context";
import { envelopeCertificateIssuedAtUpdate, selectEnvelopeRow, type EnvelopeRow } from "../envelopes/repository";
import { envelopeEventData } from "../envelopes/serialize";
import { compliantSince, issueCertificate, sameOutcomes, type Certificate, type IssuedCertificate } from "./certificate";
import { factsFrom, runChecks, type ComplianceFacts } from "./compliance-checks";
import { sha256OfStream } from "./hashing";
import {
  guardedIntegrityCheckInsert,
  integrityCheckInsert,
  lastIntegrityMatched,
  latestCertificate,
  selectLastIntegrityCheck,
  selectLatestCertificate,
  type CertificateRow,
  type IntegrityCheckRow,
  type VaultRecordRow,
} from "./repository";

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
 * the envelope's `certificate_issued_at` moves to it. Repeated identical outcomes add a row and nothing else, so a
 * tampered document downloaded a hundred times raises one tamper event, not a hundred.
 */
export async function recordIntegrityCheck(
  ctx: RequestContext,
  input: { record: VaultRecordRow; source: IntegritySource; observed: Observation },
): Promise<{ matched: boolean }> {
  const { record, source, observed } = input;
  const db = ctx.db;
  const matched = observed.hash === record.document_hash;
  const insertCheck = (at: string) => integrityCheckInsert(db, checkRow(record, source, observed, matched, at));

  const recorded = await appendEnvelopeAudit(ctx, {
    orgId: record.org_id,
    envelopeId: record.envelope_id,
    actor: SYSTEM_ACTOR,
    build: async (envelope, at) => {
      const { facts, current, outcomeChanged, checksChanged } = await assess(db, envelope, record, matched);
      if (!outcomeChanged && !checksChanged) return null;

      const statements = [insertCheck(at)];
      let issued: IssuedCertificate | null = null;
      if (checksChanged) {
        issued = await issueCertificate(ctx, { envelope, vaultId: record.id, facts, issuedAt: at, reason: `integrity_check:${source}` });
        statements.push(
          issued.insert(db, (current?.version ?? 0) + 1),
          envelopeCertificateIssuedAtUpdate(db, envelope.id, compliantSince(issued)),
        );
      }
      const detail = {
        vault_id: record.id,
        detected_by: source,
        expected_hash: record.document_hash,
        observed_hash: observed.hash,
        ...(issued ? { certificate_version: (current?.version ?? 0) + 1, compliant: issued.certificate.ucc_9105_compliance.compliant } : {}),
      };
      const action = !outcomeChanged ? "vault.certificate_reissued" : matched ? "vault.integrity_restored" : "vault.tamper_detected";
      return {
        action,
        data: detail,
        statements,
        // a tamper found (not a restore, not a re-issue) is the `vault.tamper_detected` webhook event
        event:
          outcomeChanged && !matched
            ? {
                type: "vault.tamper_detected" as const,
                data: { ...envelopeEventData(envelope), detected_by: source, expected_hash: record.document_hash, observed_hash: observed.hash, detected_at: at },
              }
            : undefined,
        abandon: issued ? () => ctx.env.DOCS.delete(issued.pdfKey) : undefined,
      };
    },
  });
  if (!recorded) await insertCheck(new Date().toISOString()).run();
  return { matched };
}

/** The row of one integrity check of `record`. */
function checkRow(record: VaultRecordRow, source: IntegritySource, observed: Observation, matched: boolean, at: string): IntegrityCheckRow {
  return {
    id: newShardId("integrityCheck", shardOf(record.id)),
    vault_id: record.id,
    envelope_id: record.envelope_id,
    org_id: record.org_id,
    source,
    matched: matched ? 1 : 0,
    expected_hash: record.document_hash,
    observed_hash: observed.hash,
    observed_size_bytes: observed.size,
    checked_at: at,
  };
}

/** What recording a check would change, judged on the state as read now. */
type Assessment = { facts: ComplianceFacts; current: CertificateRow | null; previous: boolean | null; outcomeChanged: boolean; checksChanged: boolean };

async function assess(db: D1Database, envelope: EnvelopeRow, record: VaultRecordRow, matched: boolean): Promise<Assessment> {
  const [previous, chain, current] = await Promise.all([
    lastIntegrityMatched(db, record.id),
    readVerifiedChain(db, envelope.id),
    latestCertificate(db, envelope.id),
  ]);
  return judge({ envelope, record, matched, previous, current, chainVerified: chain.verification.verified, chainRows: chain.rows });
}

/** The one judgement of a check, on a state however it was read (one check's reads, or a sweep's batch). */
function judge(input: {
  envelope: EnvelopeRow;
  record: VaultRecordRow;
  matched: boolean;
  previous: boolean | null;
  current: CertificateRow | null;
  chainVerified: boolean;
  chainRows: ChainRow[];
}): Assessment {
  const { envelope, record, matched, previous, current } = input;
  const facts = factsFrom(
    envelope,
    {
      vaultId: record.id,
      documentHash: record.document_hash,
      custodianOrgId: record.custodian_org_id,
      copyMarked: record.copy_marked === 1,
      lastIntegrityMatched: matched,
      // control as the record and its chain say (the certificate names the parties: issueCertificate reads their names)
      ...controlFactsOf(record, input.chainRows),
    },
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
  const db = ctx.db;
  if (input.records.length === 0) return { results: [] };
  const statements = input.records.flatMap((record) => [
    selectEnvelopeRow(db, record.org_id, record.envelope_id),
    selectLastIntegrityCheck(db, record.id),
    selectLatestCertificate(db, record.envelope_id),
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
      const last = read[4 * i + 1]!.results[0] as Pick<IntegrityCheckRow, "matched"> | undefined;
      const previous = last ? last.matched === 1 : null;
      const current = (read[4 * i + 2]!.results[0] as CertificateRow | undefined) ?? null;
      const rows = read[4 * i + 3]!.results as ChainRow[];
      const chain = await verifyChainRows(rows, envelope.audit_seq);
      const { outcomeChanged, checksChanged } = judge({ envelope, record, matched, previous, current, chainVerified: chain.verified, chainRows: rows });
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
  const db = ctx.db;
  for (const c of checks) {
    if (!c.quiet) await recordIntegrityCheck(ctx, { record: c.record, source, observed: c.observed });
  }
  const quiet = checks.filter((c) => c.quiet && c.guard);
  if (quiet.length === 0 && alongside.length === 0) return;
  const at = new Date().toISOString();
  const inserts = quiet.map(({ record, observed, matched, guard }) => guardedIntegrityCheckInsert(db, checkRow(record, source, observed, matched, at), guard!));
  const results = await db.batch([...inserts, ...alongside]);
  for (let i = 0; i < quiet.length; i++) {
    if (results[i]!.meta.changes === 0) await recordIntegrityCheck(ctx, { record: quiet[i]!.record, source, observed: quiet[i]!.observed });
  }
}
