import { ApiError, conflict, type ErrorCodesByStatus } from "../../lib/errors";
import type { OrgContext } from "../../lib/context";
import { nowIso } from "../../lib/time";
import { NOT_RECEIVER, NOT_SENDER } from "../control/answer-transfer";
import { verifyPoolSignature } from "../control/signature";
import { spendJti } from "./jti";
import { releasePool } from "./offer-pool";
import { getPool, poolSettle, type PoolRow } from "./repository";
import { movedCount, readPool } from "./read-pool";
import { poolView, type PoolView } from "./view";

/** 409 `pool_not_pending`: the pool was already accepted, rejected, cancelled or expired (or is still being offered). */
export const POOL_NOT_PENDING = "pool_not_pending";
export type PoolAnswer = "accept" | "reject" | "cancel";

const notPending = (pool: Pick<PoolRow, "id" | "status">) =>
  conflict(`This pool is not pending: it is ${pool.status}`, { pool_id: pool.id, status: pool.status }, POOL_NOT_PENDING);

/**
 * Accepts, rejects (the receiver) or cancels (the sender) a pending pool (docs/control.md "Pools").
 * Anyone else: 404; not pending: 409 `pool_not_pending` to either party, before whose turn it was; a pending
 * pool past its `expires_at` is expired first (its holds released) and answered 409 the same way; the
 * wrong party: 403 `not_receiver` / `not_sender`. Control-Signature (if keyed): `{ action: "pool_accept" |
 * "pool_reject" | "pool_cancel", pool_id, manifest_sha256, body_sha256 (of {}), jti, iat }`.
 *
 * The answer is one guarded write of the pool row (pending → accepted/rejected/cancelled, before its
 * expiry), so of racing answers one wins. A rejection or cancellation then releases every hold. An
 * acceptance starts the pool's Durable Object, which moves the records (move-pool.ts); the minute job
 * starts it again if this request never got that far.
 */
export async function answerPool(caller: OrgContext, input: { poolId: string; answer: PoolAnswer; signatureHeader: string | undefined }): Promise<PoolView> {
  const { ctx, pool } = await readPool(caller, input.poolId);
  if (pool.status !== "pending") throw notPending(pool);
  const at = nowIso();
  if (pool.expires_at <= at) {
    await releasePool(ctx, pool, "expired", { from: "pending", at });
    throw notPending((await getPool(ctx.db, pool.id)) ?? pool);
  }
  if (input.answer === "cancel" && pool.from_org_id !== ctx.orgId) {
    throw new ApiError(403, "Only the organization that offered the pool may cancel it; the receiving organization rejects it", undefined, NOT_SENDER);
  }
  if (input.answer !== "cancel" && pool.to_org_id !== ctx.orgId) {
    throw new ApiError(403, `Only the organization the pool is offered to may ${input.answer} it; the offering organization cancels it`, undefined, NOT_RECEIVER);
  }
  const signature = await verifyPoolSignature(ctx.global, {
    orgId: ctx.orgId,
    header: input.signatureHeader,
    action: `pool_${input.answer}`,
    poolId: pool.id,
    manifestSha256: pool.manifest_sha256,
    body: {},
  });
  if (signature) await spendJti(ctx, signature.jti, at);
  const answerSignature = signature ? JSON.stringify({ kid: signature.kid, jws: signature.jws }) : null;
  if (input.answer === "accept") {
    const res = await poolSettle(ctx.db, { poolId: pool.id, from: "pending", to: "accepted", at, answerSignature, unexpired: true }).run();
    if (res.meta.changes !== 1) throw notPending((await getPool(ctx.db, pool.id)) ?? pool);
    const accepted: PoolRow = { ...pool, status: "accepted", settled_at: at, answer_signature: answerSignature };
    await startPoolMove(ctx, accepted);
    return poolView(accepted, await movedCount(ctx, accepted));
  }
  const status = input.answer === "reject" ? "rejected" : "cancelled";
  if (!(await releasePool(ctx, pool, status, { from: "pending", at, answerSignature, unexpired: true }))) throw notPending((await getPool(ctx.db, pool.id)) ?? pool);
  return poolView({ ...pool, status, settled_at: at, answer_signature: answerSignature, released_at: at });
}

/** Starts (idempotently) the Durable Object that moves an accepted pool's records. */
export async function startPoolMove(ctx: { env: OrgContext["env"] }, pool: Pick<PoolRow, "id" | "to_org_id">): Promise<void> {
  const ns = ctx.env.POOL_TRANSFER;
  if (!ns) throw new ApiError(503, "Pools are not available: this deployment binds no POOL_TRANSFER Durable Object");
  await ns.get(ns.idFromName(pool.id)).start({ batchId: pool.id, orgId: pool.to_org_id });
}

export const ANSWER_POOL_ERRORS: ErrorCodesByStatus = { 403: [NOT_RECEIVER, NOT_SENDER], 409: [POOL_NOT_PENDING] };
