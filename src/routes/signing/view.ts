import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, ERROR_CODES_KEY, errorResponses, jsonContent, mergeErrorCodes } from "../../lib/openapi";
import { viewSigning } from "../../services/signing/view-signing";
import { signerByCredential } from "../../services/signers/resolve-credential";
import { SIGNING_SECURITY_NOTE, SIGNING_TAGS, SlugParams, signerRoute } from "./common";
import { OTP_GATE_ERRORS } from "../../services/otp/gate";
import { CONSENT_GATE_ERRORS } from "../../services/signers/consent-gate";
import { KBA_GATE_ERRORS } from "../../services/kba/gate";

export const route = createRoute(signerRoute({
  method: "post",
  operationId: "recordSigningView",
  [ERROR_CODES_KEY]: mergeErrorCodes(CONSENT_GATE_ERRORS, KBA_GATE_ERRORS, OTP_GATE_ERRORS),
  path: "/signing/{slug}/view",
  summary: "Record that the signer opened the document",
  description: `The first call records \`viewed_at\`, fires \`signer.viewed\` and moves a \`sent\` envelope to \`viewed\`; later calls change nothing. ${SIGNING_SECURITY_NOTE}`,
  tags: SIGNING_TAGS,
  request: { params: SlugParams },
  responses: { 200: jsonContent(dataOf(z.object({ viewed_at: z.string() })), "When the signer first viewed"), ...errorResponses(400, 403, 404, 409, 410, 429) },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const data = await viewSigning(c.var.ctx, { signerId: (await signerByCredential(c.var.ctx, c.req.valid("param").slug, "record a view")).signerId });
  return c.json({ data }, 200);
};
