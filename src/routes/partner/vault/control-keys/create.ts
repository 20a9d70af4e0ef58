import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent, mergeErrorCodes } from "../../../../lib/openapi";
import { ADD_CONTROL_KEY_ERRORS, addControlKey } from "../../../../services/control/add-control-key";
import { AddControlKeyBody, ControlKeySchema, ControlSignatureHeaders } from "../../../../services/control/key-schema";
import { partnerRoute } from "../../common";
import { CONTROL_SIGNATURE_ERRORS } from "../../../../services/control/signature";

export const route = createRoute(
  partnerRoute(
    "vault:control",
    {
      method: "post",
      operationId: "addControlKey",
      [ERROR_CODES_KEY]: mergeErrorCodes(CONTROL_SIGNATURE_ERRORS, ADD_CONTROL_KEY_ERRORS),
      path: "/partner/vault/control-keys",
      summary: "Register a control key",
      description:
        "Registers an ES256 (EC P-256) or Ed25519 (OKP) public key by which the organization identifies itself for control (UCC §9-105, 2022 text). Answers its `kid`, the RFC 7638 thumbprint. From then on every control action of the organization must carry a `Control-Signature` by one of its keys. The first key is registered on the API key alone; adding another needs a `Control-Signature` by a key the organization already has over `{ \"action\": \"add_key\", \"kid\": <the new key's thumbprint>, \"jti\", \"iat\" }`, `jti` a fresh string (8 to 128 printable characters) never used by the organization before: a reused `jti` is 403 `control_signature_invalid`. A private key (`d`), another curve or key type: 422 `invalid_control_key`. Already registered: 409 `control_key_exists`; more than 10 keys: 409 `control_key_limit`.",
      request: { headers: ControlSignatureHeaders, body: jsonBody(AddControlKeyBody) },
      responses: { 201: jsonContent(dataOf(ControlKeySchema), "The key, with its kid") },
    },
    [400, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const key = await addControlKey(c.var.ctx, { jwk: c.req.valid("json").jwk, signature: c.req.valid("header")["control-signature"] });
  return c.json({ data: key }, 201);
};
