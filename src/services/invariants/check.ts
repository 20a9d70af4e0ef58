import type { RequestContext } from "../../lib/context";
import { boundShards, globalDb, shardDb } from "../../lib/shards";
import { verifyChain } from "../audit/verify-chain";
import { observeAuthoritative } from "../vault/integrity";
import { emailTransportConfig } from "../../providers/email";
import { MAX_EMAIL_ATTEMPTS } from "../email/deliver";
import {
  countBilledRecords,
  deliveryFigures,
  emailOutboxFigures,
  listUsageMismatches,
  listChainIds,
  listOverdueEnvelopes,
  listOverdueTransfers,
  listStuckBatches,
  listUndispatchedEvents,
  listVaultRecords,
} from "./repository";

/** The most rows of one kind one check reads per database: past it the check says so (a broken invariant), never silently stops. */
const LIMIT = 20_000;
/** Work younger than this is in flight, not stuck: the crons run every minute. */
const GRACE_MS = 2 * 60_000;

export type InvariantReport = {
  /** what was checked, by invariant */
  checked: Record<string, number>;
  /** what broke, by invariant: the first few offenders each */
  broken: Record<string, string[]>;
  broken_total: number;
  /** deliveries pending with a retry scheduled later than now (backoff): not broken, not yet arrived */
  retry_scheduled: { event_id: string; endpoint_id: string; next_attempt_at: string | null }[];
};

/**
 * The soak's invariant check over every database and the bucket (development only: GET /dev/invariants;
 * docs/decisions/fault-layer.md): every audit chain verifies; every vaulted record's authoritative
 * object hashes to its `document_hash`; nothing a sweep should have moved is stuck (a submitted bulk
 * batch, a transfer or an envelope past its expiry, an outbox event never dispatched); every webhook
 * delivery succeeded or has its retry scheduled (backoff; listed, not broken; one overdue is stuck),
 * and no endpoint has two deliveries of one event; every email due was sent (none left queued or
 * failed with a retry never taken; the soak's mail receiver checks "once"); every envelope has exactly
 * one usage line and every billable KBA result its line, and no line bills a record that is not there.
 * Reads only.
 */
export async function checkInvariants(ctx: RequestContext, now = new Date()): Promise<InvariantReport> {
  const checked: Record<string, number> = {};
  const broken: Record<string, string[]> = {};
  const count = (name: string, n = 1) => (checked[name] = (checked[name] ?? 0) + n);
  const fail = (name: string, what: string) => {
    const list = (broken[name] ??= []);
    list.push(what);
  };
  const before = new Date(now.getTime() - GRACE_MS).toISOString();
  const retryScheduled: InvariantReport["retry_scheduled"] = [];
  const nowIso = now.toISOString();

  // the organizations' chains live in the global database; the envelopes' chains on their shards
  const databases: { name: string; db: D1Database }[] = [{ name: "global", db: globalDb(ctx.env) }];
  for (const n of boundShards(ctx.env)) {
    const db = shardDb(ctx.env, n)!;
    if (!databases.some((d) => d.db === db)) databases.push({ name: `shard ${n}`, db });
  }

  for (const { name, db } of databases) {
    const chains = await listChainIds(db, LIMIT);
    if (chains.length >= LIMIT) fail("chains_verify", `${name}: more than ${LIMIT} chains, not all checked`);
    for (const chainId of chains) {
      count("chains_verify");
      const v = await verifyChain(db, chainId);
      if (!v.verified) fail("chains_verify", `${name} ${chainId}: entry ${v.first_broken.seq}: ${v.first_broken.reason}`);
    }
    if (name === "global") continue;

    for (const record of await listVaultRecords(db, LIMIT)) {
      count("vault_hashes");
      const seen = await observeAuthoritative(ctx.env.DOCS, record);
      if (seen.hash !== record.document_hash) fail("vault_hashes", `${record.id}: object ${seen.hash ?? "missing"} vs document_hash ${record.document_hash}`);
    }

    const stuck = [
      ...(await listStuckBatches(db, before)).map((b) => `batch ${b.id} ${b.status} since ${b.updated_at}`),
      ...(await listOverdueTransfers(db, nowIso)).map((t) => `transfer ${t.id} pending past ${t.expires_at}`),
      ...(await listOverdueEnvelopes(db, nowIso)).map((e) => `envelope ${e.id} ${e.status} past its expiry`),
      ...(await listUndispatchedEvents(db, before)).map((e) => `event ${e.id} (${e.type}, ${e.org_id}, written ${e.created_at}) never dispatched`),
    ];
    count("nothing_stuck");
    for (const s of stuck) fail("nothing_stuck", `${name}: ${s}`);

    const deliveries = await deliveryFigures(db, before);
    for (const d of deliveries.scheduled) retryScheduled.push({ event_id: d.event_id, endpoint_id: d.endpoint_id, next_attempt_at: d.next_attempt_at });
    count("deliveries_settled", deliveries.total);
    for (const d of deliveries.unsettled) fail("deliveries_settled", `${name}: delivery ${d.id} to ${d.endpoint_id} is ${d.status} (next attempt ${d.next_attempt_at ?? "none"})`);
    for (const d of deliveries.doubled) fail("one_delivery_per_event", `${name}: event ${d.event_id} has ${d.n} deliveries to ${d.endpoint_id}`);
    count("one_delivery_per_event", deliveries.total);

    // every email due was sent: none left queued past the grace (unless the transport only keeps rows), none
    // failed with its retry never taken or its attempts spent; `emails_sent` is what the receiver must count once each
    const emails = await emailOutboxFigures(db, { before, outboxOnly: emailTransportConfig(ctx.env).kind === "outbox", maxAttempts: MAX_EMAIL_ATTEMPTS });
    count("emails_sent", emails.sent);
    for (const e of emails.undelivered) fail("emails_due_sent", `${name}: ${e.kind} email ${e.id} is ${e.status} after ${e.attempts} attempts (next ${e.next_attempt_at ?? "none"}): ${(e.error ?? "").slice(0, 120)}`);
    count("emails_due_sent", emails.sent + emails.undelivered.length);

    count("usage_matches_records", await countBilledRecords(db));
    for (const what of await listUsageMismatches(db, 100)) fail("usage_matches_records", `${name}: ${what}`);
  }

  const brokenTotal = Object.values(broken).reduce((n, list) => n + list.length, 0);
  for (const key of Object.keys(broken)) broken[key] = broken[key]!.slice(0, 20);
  return { checked, broken, broken_total: brokenTotal, retry_scheduled: retryScheduled };
}
