import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, ERROR_CODES_KEY, errorResponses, jsonBody, jsonContent, mergeErrorCodes } from "../../lib/openapi";
import { declineSigning } from "../../services/signing/decline-signing";
import { signerByCredential } from "../../services/signers/resolve-credential";
import { SIGNING_SECURITY_NOTE, SIGNING_TAGS, SlugParams, signerRoute } from "./common";
import { OTP_GATE_ERRORS } from "../../services/otp/gate";
import { KBA_GATE_ERRORS } from "../../services/kba/gate";

export const route = createRoute(signerRoute({
  method: "post",
  operationId: "declineSigning",
  [ERROR_CODES_KEY]: mergeErrorCodes(KBA_GATE_ERRORS, OTP_GATE_ERRORS),
  path: "/signing/{slug}/decline",
  summary: "Decline to sign, with a reason",
  description: `The signer becomes \`declined\` and the envelope \`declined\` (\`signer.declined\`, \`envelope.declined\`); every signing link of the envelope stops working. Already signed: 409. ${SIGNING_SECURITY_NOTE}`,
  tags: SIGNING_TAGS,
  request: { params: SlugParams, body: jsonBody(z.object({ reason: z.string().trim().min(1).max(1000) })) },
  responses: {
    200: jsonContent(dataOf(z.object({ signer_status: z.literal("declined"), envelope_status: z.literal("declined") })), "Declined"),
    ...errorResponses(400, 403, 404, 409, 410, 415, 422, 429),
  },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const data = await declineSigning(c.var.ctx, {
    signerId: (await signerByCredential(c.var.ctx, c.req.valid("param").slug, "decline")).signerId,
    reason: c.req.valid("json").reason,
  });
  return c.json({ data }, 200);
};
