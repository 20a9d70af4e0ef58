import type { VaultRecordRow } from "../vault/repository";

/**
 * The reads of the invariant check (docs/decisions/fault-layer.md): whole-table scans, development
 * only (GET /dev/invariants), bounded by `limit` so a large local database answers "too many" rather
 * than running out the request.
 */
export async function listChainIds(db: D1Database, limit: number): Promise<string[]> {
  const { results } = await db.prepare("SELECT DISTINCT chain_id FROM audit_log LIMIT ?").bind(limit).all<{ chain_id: string }>();
  return results.map((r) => r.chain_id);
}

export async function listVaultRecords(db: D1Database, limit: number): Promise<VaultRecordRow[]> {
  return (await db.prepare("SELECT * FROM vault_records LIMIT ?").bind(limit).all<VaultRecordRow>()).results;
}

/** Bulk batches a sweep should have moved on: submitted (ready, running) and untouched since `before`. */
export async function listStuckBatches(db: D1Database, before: string): Promise<{ id: string; status: string; updated_at: string }[]> {
  return (
    await db.prepare("SELECT id, status, updated_at FROM bulk_batches WHERE status IN ('ready', 'running') AND updated_at < ?").bind(before).all<{ id: string; status: string; updated_at: string }>()
  ).results;
}

/** Transfers still pending past their expiry: the transfer sweep expires them. */
export async function listOverdueTransfers(db: D1Database, now: string): Promise<{ id: string; expires_at: string }[]> {
  return (await db.prepare("SELECT id, expires_at FROM vault_transfers WHERE status = 'pending' AND expires_at < ?").bind(now).all<{ id: string; expires_at: string }>()).results;
}

/** Envelopes still out for signature past their expiry: the expiry sweep expires them. */
export async function listOverdueEnvelopes(db: D1Database, now: string): Promise<{ id: string; status: string }[]> {
  return (
    await db.prepare("SELECT id, status FROM envelopes WHERE status IN ('sent', 'viewed') AND expires_at IS NOT NULL AND expires_at < ?").bind(now).all<{ id: string; status: string }>()
  ).results;
}

/** Outbox events never handed to the webhook fan-out (the relay cron picks these up). */
export async function listUndispatchedEvents(db: D1Database, before: string): Promise<{ id: string; type: string; org_id: string; created_at: string }[]> {
  return (
    await db
      .prepare("SELECT id, type, org_id, created_at FROM events WHERE dispatched_at IS NULL AND created_at < ?")
      .bind(before)
      .all<{ id: string; type: string; org_id: string; created_at: string }>()
  ).results;
}

type Unsettled = { id: string; status: string; endpoint_id: string; event_id: string; next_attempt_at: string | null };

/**
 * Deliveries not succeeded: failed, or pending with their next attempt due before `before` (a sweep
 * should have sent them: stuck); those pending with a retry scheduled after it (not due yet); and
 * more than one delivery of one event to one endpoint.
 */
export async function deliveryFigures(
  db: D1Database,
  before: string,
): Promise<{ total: number; unsettled: Unsettled[]; scheduled: Unsettled[]; doubled: { event_id: string; endpoint_id: string; n: number }[] }> {
  const [total, unsettled, scheduled, doubled] = await db.batch<unknown>([
    db.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries"),
    db
      .prepare("SELECT id, status, endpoint_id, event_id, next_attempt_at FROM webhook_deliveries WHERE status <> 'succeeded' AND (status <> 'pending' OR next_attempt_at IS NULL OR next_attempt_at < ?) LIMIT 100")
      .bind(before),
    db.prepare("SELECT id, status, endpoint_id, event_id, next_attempt_at FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at >= ? LIMIT 5000").bind(before),
    db.prepare("SELECT event_id, endpoint_id, COUNT(*) AS n FROM webhook_deliveries GROUP BY event_id, endpoint_id HAVING COUNT(*) > 1 LIMIT 100"),
  ]);
  return {
    total: (total!.results[0] as { n: number }).n,
    unsettled: unsettled!.results as Unsettled[],
    scheduled: scheduled!.results as Unsettled[],
    doubled: doubled!.results as { event_id: string; endpoint_id: string; n: number }[],
  };
}

/**
 * Usage lines that do not match the records they bill: an envelope without exactly one `esign_envelope`
 * line, such a line whose envelope is not here, a billable KBA result (`price_cents > 0`) without its
 * `kba_verification` line, or such a line without a billable result. One description per offender.
 */
export async function listUsageMismatches(db: D1Database, limit: number): Promise<string[]> {
  const { results } = await db
    .prepare(
      `SELECT 'envelope ' || e.id || ': ' || n || ' esign_envelope lines' AS what
         FROM (SELECT e.id, (SELECT COUNT(*) FROM usage_lines u WHERE u.kind = 'esign_envelope' AND u.envelope_id = e.id) AS n FROM envelopes e) e WHERE n <> 1
       UNION ALL
       SELECT 'usage line ' || u.id || ': bills envelope ' || COALESCE(u.envelope_id, 'none') || ', not found'
         FROM usage_lines u WHERE u.kind = 'esign_envelope' AND NOT EXISTS (SELECT 1 FROM envelopes e WHERE e.id = u.envelope_id)
       UNION ALL
       SELECT 'signer ' || k.signer_id || ': billable KBA result without its kba_verification line'
         FROM kba_results k WHERE k.price_cents > 0 AND NOT EXISTS (SELECT 1 FROM usage_lines u WHERE u.kind = 'kba_verification' AND u.signer_id = k.signer_id)
       UNION ALL
       SELECT 'usage line ' || u.id || ': kba_verification without a billable result'
         FROM usage_lines u WHERE u.kind = 'kba_verification' AND NOT EXISTS (SELECT 1 FROM kba_results k WHERE k.signer_id = u.signer_id AND k.price_cents > 0)
       LIMIT ?`,
    )
    .bind(limit)
    .all<{ what: string }>();
  return results.map((r) => r.what);
}

/** How many envelopes and KBA results the usage check compared. */
export async function countBilledRecords(db: D1Database): Promise<number> {
  const row = await db.prepare("SELECT (SELECT COUNT(*) FROM envelopes) + (SELECT COUNT(*) FROM kba_results) AS n").first<{ n: number }>();
  return row?.n ?? 0;
}

type OutboxEmailState = { id: string; kind: string; status: string; attempts: number; next_attempt_at: string | null; error: string | null };

/**
 * The email outbox as the email invariant reads it: the rows delivered (`sent`), and those a sender or
 * the retry job should have delivered and did not: a `failed` row with a retry still scheduled or its
 * `maxAttempts` spent (a permanent refusal, or "Not sent" for a closed envelope, has no retry and fewer
 * attempts: not due), and, unless the transport only keeps rows (`outboxOnly`), a `queued` row written
 * before `before`.
 */
export async function emailOutboxFigures(
  db: D1Database,
  input: { before: string; outboxOnly: boolean; maxAttempts: number },
): Promise<{ sent: number; undelivered: OutboxEmailState[] }> {
  const [sent, undelivered] = await db.batch<unknown>([
    db.prepare("SELECT COUNT(*) AS n FROM email_outbox WHERE status = 'sent'"),
    db
      .prepare(
        `SELECT id, kind, status, attempts, next_attempt_at, error FROM email_outbox
         WHERE (status = 'failed' AND (next_attempt_at IS NOT NULL OR attempts >= ?3))
            OR (?2 = 0 AND status = 'queued' AND created_at < ?1)
         LIMIT 100`,
      )
      .bind(input.before, input.outboxOnly ? 1 : 0, input.maxAttempts),
  ]);
  return { sent: (sent!.results[0] as { n: number }).n, undelivered: undelivered!.results as OutboxEmailState[] };
}
