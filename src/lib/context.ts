import type { Env, OutboxMessage } from "../env";
import { SYSTEM_ACTOR, type Actor } from "./actor";
import { globalDb, shardDb, shardOf, type GlobalDb, type ShardDb } from "./shards";

/**
 * The one thing every service verb takes first: `verb(ctx, input)`. Built once per request by the
 * auth middleware of the request's surface (partner key, console session, operator, embed token,
 * signer slug) and read from `c.var.ctx`; the cron and queue handlers build it with the system actor.
 */
export type RequestContext = {
  env: Env;
  /** the global database (`DB`): organizations, credentials, placement, per-organization configuration */
  global: GlobalDb;
  /**
   * The shard this request works on (docs/decisions/shards.md 3): the shard named by the record id in
   * the path (`recordShard`), else the organization's current shard (where creates go), else shard 1.
   */
  db: ShardDb;
  /** the number of `db` */
  shardId: number;
  /** true when `db` was chosen by a record id of the request: the organization's current shard does not replace it */
  recordShard?: boolean;
  /**
   * hand on just-committed outbox events (those of one commit in one call): request surfaces and the bulk
   * batch deliver their webhooks at once, other jobs queue them (see Publisher; the relay cron is the safety net)
   */
  publish: (...eventIds: string[]) => void;
  /** finish work after the response has gone */
  waitUntil: (p: Promise<unknown>) => void;
  requestId: string;
  /** who does it: recorded on every audit entry */
  actor: Actor;
  /**
   * The organization the caller acts in: the partner key's, or the console member's chosen one. Null
   * where the organization follows from the resource (signer slug, embed token) or is an input
   * (operator, jobs).
   */
  orgId: string | null;
  /**
   * The signing session a signer request came with (signers/resolve-credential.ts): when it was issued,
   * so the first read of that signer's row refuses it if the signer's link was re-issued since
   * (a correction, a re-sent invitation), with no read of its own.
   */
  signerSession?: { signerId: string; issuedAt: number; viewOnly?: boolean };
  /**
   * A partner POST sent with an Idempotency-Key (middleware/idempotency.ts): the SHA-256 of the key's id,
   * the Idempotency-Key and the request's fingerprint. A create commits it beside its record
   * (services/idempotency/keyed-create.ts), so a retry after an ambiguous failure finds that record.
   */
  idempotencyRef?: string;
};

/**
 * How `publish` hands committed events on. By default they go on the webhook queue; the request
 * surfaces and the bulk batch pass services/events/publish.ts, which also fans them out and sends the
 * first attempts in `waitUntil` (lib cannot import services, so the caller injects it).
 */
export type Publisher = (ctx: RequestContext, eventIds: readonly string[]) => Promise<unknown>;

const SEND_BATCH = 100; // Queue#sendBatch takes at most 100 messages

/**
 * Puts messages on the webhook queue in sendBatch calls. Never throws: a failed call is logged with
 * `ifLost`, what picks the messages' work up instead (the relay, the sweep).
 */
export async function enqueueMessages(ctx: RequestContext, bodies: readonly OutboxMessage[], ifLost: string): Promise<void> {
  for (let i = 0; i < bodies.length; i += SEND_BATCH) {
    const chunk = bodies.slice(i, i + SEND_BATCH);
    try {
      await ctx.env.WEBHOOK_QUEUE.sendBatch(chunk.map((body) => ({ body })));
    } catch (err) {
      console.warn(`webhook queue fast path failed; ${ifLost}`, chunk.length, err);
    }
  }
}

/** The default Publisher: one event message per event on the webhook queue. Never throws. */
export const enqueueEvents: Publisher = (ctx, eventIds) =>
  enqueueMessages(ctx, eventIds.map((id) => ({ kind: "event", event_id: id })), "the relay will pick them up");

/** A context whose caller acts in one organization (partner and console surfaces). */
export type OrgContext = RequestContext & { orgId: string };

export function createContext(
  env: Env,
  waitUntil: (p: Promise<unknown>) => void,
  fields: { requestId: string; actor?: Actor; orgId?: string | null; publisher?: Publisher },
): RequestContext {
  const publisher = fields.publisher ?? enqueueEvents;
  const ctx: RequestContext = {
    env,
    global: globalDb(env),
    db: shardDb(env, 1)!,
    shardId: 1,
    waitUntil,
    publish: (...eventIds) => {
      if (eventIds.length > 0) waitUntil(publisher(ctx, eventIds));
    },
    requestId: fields.requestId,
    actor: fields.actor ?? SYSTEM_ACTOR,
    orgId: fields.orgId ?? null,
  };
  return ctx;
}

/** The context of a cron or queue run: the system actor, no organization. */
export function systemContext(env: Env, waitUntil: (p: Promise<unknown>) => void, requestId = `job_${crypto.randomUUID()}`): RequestContext {
  return createContext(env, waitUntil, { requestId });
}

/** The same context acting in one organization (a verb that fans out per organization, a job per org). */
export function inOrg(ctx: RequestContext, orgId: string): OrgContext {
  return { ...ctx, orgId };
}

/**
 * The same context working on shard `shard`. A shard this deployment does not bind is answered from
 * shard 1, where no record tagged with another number can exist: the caller's read finds nothing and
 * answers its ordinary 404 (an id naming an unknown shard is never a 500).
 */
export function onShard<C extends RequestContext>(ctx: C, shard: number, recordShard = ctx.recordShard): C {
  const db = shardDb(ctx.env, shard);
  return db ? { ...ctx, db, shardId: shard, recordShard } : { ...ctx, db: shardDb(ctx.env, 1)!, shardId: 1, recordShard };
}

/** The same context working on the shard `id` names (its record's shard). */
export const onShardOf = <C extends RequestContext>(ctx: C, id: string): C => onShard(ctx, shardOf(id), true);

/** The context on the organization's current shard, unless a record id of the request already chose one. */
export const onCurrentShard = <C extends RequestContext>(ctx: C, shard: number): C => (ctx.recordShard ? ctx : onShard(ctx, shard, false));
