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
export async function listUndispatchedEvents(db: D1Database, before: string): Promise<{ id: string }[]> {
  return (await db.prepare("SELECT id FROM events WHERE dispatched_at IS NULL AND created_at < ?").bind(before).all<{ id: string }>()).results;
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
