import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonContent, mergeErrorCodes } from "../../../../lib/openapi";
import { ControlSignatureHeaders } from "../../../../services/control/key-schema";
import { ANSWER_POOL_ERRORS, answerPool, type PoolAnswer } from "../../../../services/pools/answer-pool";
import { PoolParams, PoolSchema } from "../../../../services/pools/schema";
import { partnerRoute } from "../../common";
import { CONTROL_SIGNATURE_ERRORS } from "../../../../services/control/signature";

const COMMON =
  "Anyone but the pool's two organizations: 404. Not pending: 409 `pool_not_pending` to either (`details.status` says what it is), before any 403; a pending pool past its `expires_at` is expired first and answered 409 the same way. Control-Signature payload: `{ action, pool_id, manifest_sha256, body_sha256, jti, iat }` (`body_sha256` of `{}`, `jti` good once).";

const answerRoute = (answer: PoolAnswer, operationId: string, summary: string, description: string) =>
  createRoute(
    partnerRoute(
      "vault:control",
      {
        method: "post",
        operationId,
        [ERROR_CODES_KEY]: mergeErrorCodes(CONTROL_SIGNATURE_ERRORS, ANSWER_POOL_ERRORS),
        path: `/partner/vault/pools/{pool_id}/${answer}`,
        summary,
        description: `${description} ${COMMON}`,
        request: { params: PoolParams, headers: ControlSignatureHeaders },
        responses: { 200: jsonContent(dataOf(PoolSchema), "The pool as it is now") },
      },
      [404, 409, 415],
    ),
  );

const handle = (answer: PoolAnswer): OrgRouteHandler<ReturnType<typeof answerRoute>> => async (c) =>
  c.json({ data: await answerPool(c.var.ctx, { poolId: c.req.valid("param").pool_id, answer, signatureHeader: c.req.valid("header")["control-signature"] }) }, 200);

export const acceptRoute = answerRoute(
  "accept",
  "acceptVaultPool",
  "Accept a pool of records",
  "By the organization the pool is offered to (others: 403 `not_receiver`). Every record then moves in the background, each with its own entry `vault.control_transferred` naming the pool on its chain and a new certificate version (no per-record event); `progress` counts them, and once every one has moved both organizations receive `vault.pool_accepted` and GET …/receipt answers. Control-Signature `action`: `pool_accept`.",
);
export const acceptHandler = handle("accept");

export const rejectRoute = answerRoute("reject", "rejectVaultPool", "Reject a pool of records", "By the organization the pool is offered to (others: 403 `not_receiver`): control of every record stays where it is and the records are free again. Control-Signature `action`: `pool_reject`.");
export const rejectHandler = handle("reject");

export const cancelRoute = answerRoute("cancel", "cancelVaultPool", "Cancel a pool of records", "By the organization that offered it (others: 403 `not_sender`): control of every record stays where it is and the records are free again. Control-Signature `action`: `pool_cancel`.");
export const cancelHandler = handle("cancel");
