import { inOrg, type RequestContext } from "../lib/context";
import { ApiError } from "../lib/errors";
import { listEnvelopesDueForReminders } from "../services/envelopes/repository";
import { remindSigners } from "../services/email/remind-signers";
import { listOrganizationNames } from "../services/organizations/repository";
import type { GlobalDb } from "../lib/shards";

/**
 * The reminder defaults of the organizations that may have envelopes on shard `shard` and set any
 * (docs/decisions/shards.md 3): those whose current shard it is or whose shard set holds it; on shard 1
 * every organization that sets any (organizations created before sharding have no shard set and their
 * envelopes are on shard 1). Over-inclusive is harmless: an organization with no envelope here matches nothing.
 */
async function reminderDefaultsOn(global: GlobalDb, shard: number): Promise<{ id: string; after: number | null; every: number | null }[]> {
  // SQL exception: the cron's own global read (organizations with their shard set), one statement per run.
  const { results } = await global
    .prepare(
      `SELECT id, reminder_after_days AS after, reminder_every_days AS every FROM organizations
       WHERE (reminder_after_days IS NOT NULL OR reminder_every_days IS NOT NULL)
         AND (?1 = 1 OR current_shard_id = ?1 OR id IN (SELECT org_id FROM org_shards WHERE shard_id = ?1))`,
    )
    .bind(shard)
    .all<{ id: string; after: number | null; every: number | null }>();
  return results;
}

/** Envelopes handled per run: the rest wait for the next minute. */
export const SEND_REMINDERS_BATCH = 50;

/**
 * Every minute (docs/consumer-signing.md): reminders and expiry warnings. For each open (`sent`/`viewed`, not past
 * `expires_at`) envelope with one due, the most pressing deadline first, at most 50 per run: the first
 * reminder `reminder_after_days` after sending, then one every `reminder_every_days` (0: once), the
 * envelope's own schedule or else its organization's (none when neither sets `reminder_after_days`);
 * the expiry warning once, 2 days before `expires_at`. Each goes to the signers whose turn it is and
 * who have not finished, with a re-issued signing link (services/email/remind-signers.ts). A completed,
 * declined, voided or expired envelope gets nothing; two overlapping runs send once.
 */
export async function sendReminders(ctx: RequestContext, now = new Date()): Promise<{ envelopes: number; emails: number }> {
  const at = now.toISOString();
  // the organizations' defaults from global first, passed to the shard's query as one parameter; then
  // the names of the organizations of what is due, one global read
  const found = await listEnvelopesDueForReminders(ctx.db, at, SEND_REMINDERS_BATCH, await reminderDefaultsOn(ctx.global, ctx.shardId));
  const names = new Map((await listOrganizationNames(ctx.global, [...new Set(found.map((r) => r.org_id))])).map((o) => [o.id, o.name]));
  const due = found.map((r) => ({ ...r, org_name: names.get(r.org_id) ?? r.org_name }));
  let envelopes = 0;
  let emails = 0;
  for (const row of due) {
    try {
      const sent = await remindSigners(inOrg(ctx, row.org_id), { due: row, now: at });
      envelopes += 1;
      emails += sent.length;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  return { envelopes, emails };
}
