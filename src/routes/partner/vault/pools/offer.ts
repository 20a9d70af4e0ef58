import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent, mergeErrorCodes } from "../../../../lib/openapi";
import { ControlSignatureHeaders } from "../../../../services/control/key-schema";
import { OFFER_POOL_ERRORS, offerPool } from "../../../../services/pools/offer-pool";
import { OfferPoolBody, PoolSchema } from "../../../../services/pools/schema";
import { partnerRoute } from "../../common";
import { CONTROL_SIGNATURE_ERRORS } from "../../../../services/control/signature";

export const route = createRoute(
  partnerRoute(
    "vault:control",
    {
      method: "post",
      operationId: "offerVaultPool",
      [ERROR_CODES_KEY]: mergeErrorCodes(CONTROL_SIGNATURE_ERRORS, OFFER_POOL_ERRORS),
      path: "/partner/vault/pools",
      summary: "Offer a pool of records (assignment or pledge)",
      description:
        "By the controller of every record: offers control of 1 to 10,000 records at once, as one `assignment` or one `pledge`, to `to_org_id`. All or nothing: a record the caller does not control, not `active`, with a transfer pending (or in another pool), or (for a pledge) already held under a pledge makes the whole request 422 `pool_refused`, `details` listing every offender (`path` [\"vault_ids\", i], `code` `not_controller`, `control_closed`, `transfer_pending` or `already_pledged`). While the pool is pending, each record answers 409 `transfer_pending` to a single transfer. Answers 202 with the pool, `pending`, its `manifest_sha256` and `expires_at` (7 days). Control-Signature payload: `{ action: \"pool_offer\", body_sha256, jti, iat }` (`jti` good once).",
      request: { headers: ControlSignatureHeaders, body: jsonBody(OfferPoolBody) },
      responses: { 202: jsonContent(dataOf(PoolSchema), "The pool, offered") },
    },
    [400, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const body = c.req.valid("json");
  const pool = await offerPool(c.var.ctx, {
    kind: body.kind,
    toOrgId: body.to_org_id,
    vaultIds: body.vault_ids,
    reference: body.reference ?? null,
    body: await c.req.json(),
    signatureHeader: c.req.valid("header")["control-signature"],
  });
  return c.json({ data: pool }, 202);
};
