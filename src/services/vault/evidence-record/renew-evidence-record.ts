import type { RequestContext } from "../../../lib/context";
import { sha256Hex } from "../../../lib/crypto";
import { newId } from "../../../lib/ids";
import { newShardId, shardOf } from "../../../lib/shards";
import { tryTimestampForDigest } from "../../../pdf";
import { appendEnvelopeAudit } from "../../envelopes/append-audit";
import { checkEvidenceRecord } from "./check";
import { newEvidenceRecord, readEvidenceRecord, renewalImprint, renewedEvidenceRecord, type EvidenceRecordContents } from "../../evidence/evidence-record";
import { evidenceDueUpdate, evidenceRecordInsert, latestEvidenceRecord, type DueRecord } from "./repository";

/**
 * How long before the newest timestamp's TSA certificate expires the record is renewed. 90 days leaves
 * a quarter of retries (one a minute) through any TSA outage, and room for an operator to configure a
 * new TSA when the current one stops answering.
 */
export const RENEWAL_MARGIN_DAYS = 90;
/** Never renewed sooner than this after the newest timestamp, whatever its TSA certificate says. */
const MIN_RENEWAL_INTERVAL_MS = 24 * 3600_000;
const DAY_MS = 24 * 3600_000;

export type RenewalOutcome =
  | { outcome: "created" | "renewed"; evidenceRecordId: string; timestampCount: number; renewBy: string }
  | { outcome: "tsa_unavailable" | "failed"; reason: string }
  | { outcome: "raced" };

/**
 * When the record must be renewed: the newest timestamp's TSA certificate's notAfter less the margin;
 * no earlier than halfway from the timestamp to that notAfter (a TSA certificate with little validity
 * left), and never within a day of the timestamp (a TSA whose certificate is already past its end: the
 * checker names that, and renewing every minute would not help).
 */
export function renewByFor(genTime: Date, tsaNotAfter: Date | null, marginDays = RENEWAL_MARGIN_DAYS): string {
  const made = genTime.getTime();
  const end = tsaNotAfter?.getTime() ?? made + 365 * DAY_MS;
  return new Date(Math.max(end - marginDays * DAY_MS, made + (end - made) / 2, made + MIN_RENEWAL_INTERVAL_MS)).toISOString();
}

const keyDir = (authoritativeKey: string) => authoritativeKey.slice(0, authoritativeKey.lastIndexOf("/") + 1);

const hexBytes = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (x) => parseInt(x, 16));

/**
 * Gives a vault record its first RFC 4998 evidence record (`current` null: a timestamp from
 * SEAL_TSA_URL over the authoritative copy's SHA-256 as recorded at vaulting), or renews its current
 * one (a timestamp over the newest archive timestamp, appended). Each version is a new R2 object beside
 * the authoritative copy and a new `vault_evidence_records` row, committed with a `vault.evidence_record`
 * entry on the envelope's chain (the record's SHA-256, its timestamp count and renew_by). The copy is
 * only named by its hash: its bytes and object are never read or written here. Never throws for a TSA
 * outage or a damaged stored record: the outcome says so and the record waits for the next run.
 */
export async function renewEvidenceRecord(ctx: RequestContext, input: DueRecord & { marginDays?: number }): Promise<RenewalOutcome> {
  const { record, current } = input;
  const tsaUrl = ctx.env.SEAL_TSA_URL;
  if (!tsaUrl) return { outcome: "failed", reason: "SEAL_TSA_URL is not set" };

  let previous: EvidenceRecordContents | null = null;
  if (current) {
    const object = await ctx.env.DOCS.get(current.record_key);
    const bytes = object ? new Uint8Array(await object.arrayBuffer()) : null;
    if (!bytes || (await sha256Hex(bytes)) !== current.record_sha256) {
      return { outcome: "failed", reason: `the stored evidence record ${current.id} is missing or no longer matches its recorded SHA-256` };
    }
    previous = readEvidenceRecord(bytes);
  }

  const imprint = previous ? await renewalImprint(previous) : hexBytes(record.document_hash);
  const stamped = await tryTimestampForDigest({ url: tsaUrl }, imprint);
  if (!stamped.ok) return { outcome: "tsa_unavailable", reason: stamped.reason };

  const der = previous ? renewedEvidenceRecord(previous, stamped.der) : newEvidenceRecord(stamped.der);
  // What is stored must pass the same check an auditor runs (a TSA answering with a broken token, one
  // signed by an expired certificate after a renewal came too late, is reported, not stored).
  const problems = await checkEvidenceRecord(der, record.document_hash);
  if (problems.length > 0) return { outcome: "failed", reason: problems.join("; ") };

  const readBack = readEvidenceRecord(der);
  const newest = readBack.chains[0]!.at(-1)!;
  const previousCount = current?.timestamp_count ?? 0;
  const count = previousCount + 1;
  const id = newShardId("evidenceRecord", shardOf(record.id));
  const key = `${keyDir(record.authoritative_key)}evidence-record-${count}-${id}.ers`;
  const sha256 = await sha256Hex(der);
  const renewBy = renewByFor(newest.genTime, newest.tsaNotAfter, input.marginDays);
  await ctx.env.DOCS.put(key, der, {
    httpMetadata: { contentType: "application/octet-stream" },
    customMetadata: { envelope_id: record.envelope_id, vault_id: record.id, role: "evidence-record" },
    sha256,
  });

  let committed = false;
  try {
    committed = await appendEnvelopeAudit(ctx, {
      orgId: record.org_id,
      envelopeId: record.envelope_id,
      actor: ctx.actor,
      build: async (_envelope, at) => {
        // another run renewed this version meanwhile: nothing to record, this object is discarded
        const latest = await latestEvidenceRecord(ctx.db, record.id);
        if ((latest?.timestamp_count ?? 0) !== previousCount) return null;
        return {
          action: "vault.evidence_record",
          data: {
            vault_id: record.id,
            evidence_record_id: id,
            sha256,
            timestamp_count: count,
            document_hash: record.document_hash,
            gen_time: newest.genTime.toISOString(),
            tsa_certificate_not_after: newest.tsaNotAfter?.toISOString() ?? null,
            renew_by: renewBy,
          },
          statements: [
            evidenceRecordInsert(
              ctx.db,
              { id, vault_id: record.id, org_id: record.org_id, record_key: key, record_sha256: sha256, timestamp_count: count, renew_by: renewBy, created_at: at },
              previousCount,
            ),
            evidenceDueUpdate(ctx.db, record.id),
          ],
        };
      },
    });
  } finally {
    if (!committed) await ctx.env.DOCS.delete(key).catch(() => {});
  }
  if (!committed) return { outcome: "raced" };
  return { outcome: current ? "renewed" : "created", evidenceRecordId: id, timestampCount: count, renewBy };
}
