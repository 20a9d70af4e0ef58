import type { OutboxMessage } from "../env";
import { onShard, type RequestContext } from "../lib/context";
import { boundShards } from "../lib/shards";
import { autoVaultSweep } from "./auto-vault-sweep";
import { destroyExpired } from "./destroy-expired";
import { expireEnvelopes } from "./expire-envelopes";
import { expireTransfers } from "./expire-transfers";
import { tendPools } from "../services/pools/tend-pools";
import { continueIntegritySweep, startIntegritySweep } from "./integrity-sweep";
import { pruneControlJtis } from "./prune-control-jtis";
import { pruneIdempotency, pruneKeyedCreateMarks } from "./prune-idempotency";
import { pruneWebhookAttempts } from "./prune-webhook-attempts";
import { raiseEvidenceJob } from "./raise-evidence";
import { relayOutbox } from "./relay-outbox";
import { renewEvidenceRecords } from "./renew-evidence-records";
import { resumeBulkBatches } from "./resume-bulk-batches";
import { retryEmails } from "./retry-emails";
import { sendReminders } from "./send-reminders";
import { sweepDeliveries } from "./sweep-deliveries";

/**
 * The cron's work per shard and globally (docs/decisions/shards.md 3, "Crons"). Every job below works on
 * `ctx.db`, one shard's tables, with its own per-run budget; the handler runs the whole list once per
 * bound shard, shards concurrently. Global jobs (tables of `DB`) run once per minute.
 */
type Job = readonly [name: string, run: (ctx: RequestContext, now: Date) => Promise<unknown>];

export const SHARD_JOBS: readonly Job[] = [
  ["expire-envelopes", expireEnvelopes],
  ["expire-transfers", expireTransfers],
  ["tend-pools", (ctx, now) => tendPools(ctx, now)],
  ["send-reminders", sendReminders],
  ["relay-outbox", relayOutbox],
  ["sweep-deliveries", (ctx, now) => sweepDeliveries(ctx, now)],
  ["integrity-sweep", (ctx, now) => continueIntegritySweep(ctx, now)],
  ["retry-emails", retryEmails],
  ["prune-webhook-attempts", pruneWebhookAttempts],
  ["prune-keyed-create-marks", pruneKeyedCreateMarks],
  ["resume-bulk-batches", resumeBulkBatches],
  ["auto-vault-sweep", autoVaultSweep],
  ["renew-evidence-records", (ctx, now) => renewEvidenceRecords(ctx, now)],
  ["raise-evidence", raiseEvidenceJob],
  ["destroy-expired", destroyExpired],
];

export const GLOBAL_JOBS: readonly Job[] = [
  ["prune-idempotency", pruneIdempotency],
  ["prune-control-jtis", pruneControlJtis],
];

/**
 * Past this many bound shards the minute cron runs no shard's jobs itself: it enqueues one
 * `shard_tick` per shard and the queue consumer runs each shard's jobs in its own invocation, so no
 * shard's minute waits behind another's (nor shares one invocation's limits with it).
 */
export const INLINE_SHARDS_MAX = 8;

export type MinutePlan =
  | { mode: "inline"; shards: number[] }
  | { mode: "enqueue"; messages: Extract<OutboxMessage, { kind: "shard_tick" }>[] };

/** What one minute does with `shards`: run them here (up to INLINE_SHARDS_MAX), or enqueue a tick each. */
export function planMinute(shards: readonly number[], at: string): MinutePlan {
  if (shards.length <= INLINE_SHARDS_MAX) return { mode: "inline", shards: [...shards] };
  return { mode: "enqueue", messages: shards.map((shard) => ({ kind: "shard_tick" as const, shard, at })) };
}

/** Runs `jobs` concurrently (one failing must not starve the others); the failures, named. */
async function runJobs(ctx: RequestContext, now: Date, jobs: readonly Job[], label: string): Promise<string[]> {
  const results = await Promise.allSettled(jobs.map(([, run]) => run(ctx, now)));
  return results.flatMap((r, i) => (r.status === "rejected" ? [`${label}${jobs[i]![0]}: ${String(r.reason)}`] : []));
}

/** One shard's minute: every per-shard job on shard `shard`. The failures, named with the shard. */
export function runShardJobs(ctx: RequestContext, shard: number, now: Date): Promise<string[]> {
  return runJobs(onShard(ctx, shard, true), now, SHARD_JOBS, `shard ${shard} `);
}

/**
 * The minute cron: global jobs once; each bound shard's jobs concurrently (or, past INLINE_SHARDS_MAX
 * shards, one `shard_tick` per shard on the queue). Throws naming every failed job after all ran.
 */
export async function runMinute(ctx: RequestContext, now: Date, shards: readonly number[] = boundShards(ctx.env)): Promise<{ plan: MinutePlan; failed: string[] }> {
  const plan = planMinute(shards, now.toISOString());
  const work: Promise<string[]>[] = [runJobs(ctx, now, GLOBAL_JOBS, "")];
  if (plan.mode === "inline") work.push(...plan.shards.map((n) => runShardJobs(ctx, n, now)));
  else work.push(enqueueShardTicks(ctx, plan.messages));
  const failed = (await Promise.all(work)).flat();
  return { plan, failed };
}

async function enqueueShardTicks(ctx: RequestContext, messages: Extract<OutboxMessage, { kind: "shard_tick" }>[]): Promise<string[]> {
  try {
    await ctx.env.WEBHOOK_QUEUE.sendBatch(messages.map((body) => ({ body })));
    return [];
  } catch (err) {
    // the next minute enqueues again; nothing of a shard's work is lost, only this minute's turn
    return [`enqueue shard ticks: ${String(err)}`];
  }
}

/** The name of every job the minute runs, per shard or globally. */
export const MINUTE_JOB_NAMES = [...SHARD_JOBS, ...GLOBAL_JOBS].map(([name]) => name);

/**
 * One job of the minute run by itself at `now` (a development route: a job's effect at a later clock
 * without every other job running at it): a shard job on every bound shard, a global job once. The
 * failures, named as the minute names them.
 */
export async function runMinuteJob(ctx: RequestContext, name: string, now: Date, shards: readonly number[] = boundShards(ctx.env)): Promise<{ shards: number[]; failed: string[] }> {
  const shardJob = SHARD_JOBS.filter(([n]) => n === name);
  if (shardJob.length > 0) return { shards: [...shards], failed: (await Promise.all(shards.map((n) => runJobs(onShard(ctx, n, true), now, shardJob, `shard ${n} `)))).flat() };
  return { shards: [], failed: await runJobs(ctx, now, GLOBAL_JOBS.filter(([n]) => n === name), "") };
}

/**
 * The weekly trigger: a new integrity-sweep cycle on every bound shard (each shard's cursor is in that
 * shard's `job_cursors`), with its first batch when the cron runs the shards itself.
 */
export async function startIntegrityCycles(ctx: RequestContext, now: Date, shards: readonly number[] = boundShards(ctx.env)): Promise<string[]> {
  const results = await Promise.allSettled(shards.map((n) => startIntegritySweep(onShard(ctx, n, true), now)));
  return results.flatMap((r, i) => (r.status === "rejected" ? [`shard ${shards[i]} integrity-sweep start: ${String(r.reason)}`] : []));
}

/** A tick delivered later than this is dropped: a newer minute's tick for its shard is already queued. */
export const SHARD_TICK_STALE_MS = 3 * 60_000;

/**
 * The queue consumer's part for `shard_tick` messages (other kinds are left to dispatchEvents): each
 * tick runs its shard's jobs at the tick's minute; a tick whose jobs failed is acked all the same (the
 * next minute's tick runs them again) and the failures are logged; a stale tick (a backlog) is acked
 * without running, so a queue backlog never multiplies a shard's minutes.
 */
export async function runShardTicks(ctx: RequestContext, messages: readonly Message<OutboxMessage>[], now = new Date()): Promise<void> {
  await Promise.all(
    messages.map(async (m) => {
      if (m.body.kind !== "shard_tick") return;
      if (now.getTime() - Date.parse(m.body.at) > SHARD_TICK_STALE_MS) {
        m.ack();
        return;
      }
      const failed = await runShardJobs(ctx, m.body.shard, new Date(m.body.at));
      if (failed.length > 0) console.error(JSON.stringify({ level: "error", shard_tick: m.body.shard, failed }));
      m.ack();
    }),
  );
}
