import type { Env } from "../env";
import { SYSTEM_ACTOR, type Actor } from "./actor";

/**
 * The one thing every service verb takes first: `verb(ctx, input)`. Built once per request by the
 * auth middleware of the request's surface (partner key, console session, operator, embed token,
 * signer slug) and read from `c.var.ctx`; the cron and queue handlers build it with the system actor.
 */
export type RequestContext = {
  env: Env;
  db: D1Database;
  /** hand on a just-committed outbox event: request surfaces deliver its webhooks at once, jobs queue it (see Publisher; the relay cron is the safety net) */
  publish: (eventId: string) => void;
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
};

/**
 * How `publish` hands a committed event on. By default it goes on the webhook queue; the request
 * surfaces pass services/events/publish.ts, which also fans it out and sends the first attempts in
 * `waitUntil` (lib cannot import services, so the middleware injects it).
 */
export type Publisher = (ctx: RequestContext, eventId: string) => Promise<unknown>;

const enqueueEvent: Publisher = (ctx, eventId) =>
  ctx.env.WEBHOOK_QUEUE.send({ kind: "event", event_id: eventId }).catch((err: unknown) => {
    console.warn("outbox fast path failed; the relay will pick it up", eventId, err);
  });

/** A context whose caller acts in one organization (partner and console surfaces). */
export type OrgContext = RequestContext & { orgId: string };

export function createContext(
  env: Env,
  waitUntil: (p: Promise<unknown>) => void,
  fields: { requestId: string; actor?: Actor; orgId?: string | null; publisher?: Publisher },
): RequestContext {
  const publisher = fields.publisher ?? enqueueEvent;
  const ctx: RequestContext = {
    env,
    db: env.DB,
    waitUntil,
    publish: (eventId) => waitUntil(publisher(ctx, eventId)),
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
