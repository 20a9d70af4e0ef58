import type { OrgContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { findIdempotentCreate, idempotentCreateDelete, idempotentCreateInsert } from "./repository";

/** How long an Idempotency-Key answers for its request (Stripe's 24 h): the key's record and a create's mark. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * A keyed create whose commit landed but whose answer was lost (a D1 timeout after the write: 503, which
 * releases the Idempotency-Key so the client may retry) must not create a second record on the retry
 * (docs/decisions/idempotency-keys.md). So a create sent with a key commits, in its own batch, a mark
 * naming its record under the request's ref (`ctx.idempotencyRef`): the retry's batch then fails on the
 * mark's primary key, rolls back whole, and the create answers the record the first attempt made.
 * Without a key: nothing, and the create's batch is as before.
 */
export function keyedCreateMark(ctx: OrgContext, recordId: string, at: string): D1PreparedStatement[] {
  return ctx.idempotencyRef ? [idempotentCreateInsert(ctx.db, { orgId: ctx.orgId, ref: ctx.idempotencyRef, recordId, at })] : [];
}

/**
 * After a create's batch threw: the id of the record an earlier attempt of the same keyed request
 * committed, when that is why it threw; null otherwise (the caller rethrows). A mark older than the
 * key's window belongs to an old request: it is forgotten and the client told to retry (409 "retry"
 * releases the key), so the key names a new request, as the key's own record does after 24 h.
 */
export async function earlierKeyedCreate(ctx: OrgContext, err: unknown): Promise<string | null> {
  if (!ctx.idempotencyRef || !/idempotent_creates/.test(String(err))) return null;
  const mark = await findIdempotentCreate(ctx.db, ctx.orgId, ctx.idempotencyRef);
  if (!mark) return null;
  if (Date.parse(mark.created_at) < Date.now() - IDEMPOTENCY_WINDOW_MS) {
    await idempotentCreateDelete(ctx.db, ctx.orgId, ctx.idempotencyRef, mark.created_at);
    throw conflict("This Idempotency-Key's earlier request is past its 24-hour window and was just forgotten; retry");
  }
  return mark.record_id;
}
