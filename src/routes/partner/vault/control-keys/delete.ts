import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonContent, mergeErrorCodes } from "../../../../lib/openapi";
import { CONTROL_KEYS_CHANGED_ERRORS, deleteControlKey } from "../../../../services/control/delete-control-key";
import { ControlKeyDeletedSchema, ControlSignatureHeaders, KidParams } from "../../../../services/control/key-schema";
import { partnerRoute } from "../../common";
import { CONTROL_SIGNATURE_ERRORS } from "../../../../services/control/signature";

export const route = createRoute(
  partnerRoute(
    "vault:control",
    {
      method: "delete",
      operationId: "deleteControlKey",
      [ERROR_CODES_KEY]: mergeErrorCodes(CONTROL_SIGNATURE_ERRORS, CONTROL_KEYS_CHANGED_ERRORS),
      path: "/partner/vault/control-keys/{kid}",
      summary: "Delete a control key",
      description:
        "Signed: a `Control-Signature` by one of the organization's keys (the one deleted included) over `{ \"action\": \"delete_key\", \"kid\": <the kid deleted>, \"jti\", \"iat\" }` (`jti` fresh, good once: reused, 403 `control_signature_invalid`), so a stolen API key cannot remove them. Deleting the last key is allowed: the organization then acts on its API key alone. An organization that lost every private key asks the operator to recover it. Unknown kid: 404.",
      request: { headers: ControlSignatureHeaders, params: KidParams },
      responses: { 200: jsonContent(dataOf(ControlKeyDeletedSchema), "The key is deleted") },
    },
    [400, 404, 409],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const result = await deleteControlKey(c.var.ctx, { kid: c.req.valid("param").kid, signature: c.req.valid("header")["control-signature"] });
  return c.json({ data: result }, 200);
};
