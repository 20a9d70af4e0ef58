import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { ERROR_CODES_KEY, errorResponses, mergeErrorCodes } from "../../lib/openapi";
import { openSigningDocument } from "../../services/signing/get-signing";
import { signerByCredential } from "../../services/signers/resolve-credential";
import { SIGNING_SECURITY_NOTE, SIGNING_TAGS, SlugParams, signerRoute } from "./common";
import { OTP_GATE_ERRORS } from "../../services/otp/gate";
import { CONSENT_GATE_ERRORS } from "../../services/signers/consent-gate";
import { KBA_GATE_ERRORS } from "../../services/kba/gate";

export const route = createRoute(signerRoute({
  method: "get",
  operationId: "getSigningDocument",
  [ERROR_CODES_KEY]: mergeErrorCodes(CONSENT_GATE_ERRORS, KBA_GATE_ERRORS, OTP_GATE_ERRORS),
  path: "/signing/{slug}/document",
  summary: "The document to sign (original PDF)",
  description: `Streams the envelope's original PDF for the signing page to render. ${SIGNING_SECURITY_NOTE}`,
  tags: SIGNING_TAGS,
  request: { params: SlugParams },
  responses: {
    200: { description: "The PDF", content: { "application/pdf": { schema: { type: "string", format: "binary" } } } },
    ...errorResponses(400, 403, 404, 410, 429),
  },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const doc = await openSigningDocument(c.var.ctx, { signerId: (await signerByCredential(c.var.ctx, c.req.valid("param").slug)).signerId });
  return c.body(doc.body, 200, {
    "Content-Type": "application/pdf",
    "Content-Length": String(doc.size),
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
  });
};
