import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, ERROR_CODES_KEY, errorResponses, jsonBody, jsonContent, mergeErrorCodes } from "../../lib/openapi";
import { submitSigning } from "../../services/signing/submit-signing";
import { signerByCredential } from "../../services/signers/resolve-credential";
import { SIGNING_SECURITY_NOTE, SIGNING_TAGS, SlugParams, signerRoute } from "./common";
import { OTP_GATE_ERRORS } from "../../services/otp/gate";
import { CONSENT_GATE_ERRORS } from "../../services/signers/consent-gate";
import { PAYMENT_PENDING_ERRORS } from "../../lib/errors";
import { KBA_GATE_ERRORS } from "../../services/kba/gate";
import { STAMP_ERRORS } from "../../pdf";

const SubmitBody = z.object({
  values: z
    .record(z.string().max(200), z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .openapi({
      description:
        "Values by field name. signature/initials: a `data:image/png;base64,…` URL (drawn, at most 512 KiB decoded; the whole body at most 1 MiB) or text (typed); text; date `YYYY-MM-DD`; number; checkbox boolean; select/radio the chosen option. Readonly fields may be omitted (they keep their value).",
      example: { buyer_signature: "Ann Buyer", buyer_phone: "555-0100" },
    }),
});

export const route = createRoute(signerRoute({
  method: "post",
  operationId: "submitSigning",
  [ERROR_CODES_KEY]: mergeErrorCodes(CONSENT_GATE_ERRORS, KBA_GATE_ERRORS, OTP_GATE_ERRORS, PAYMENT_PENDING_ERRORS, STAMP_ERRORS),
  path: "/signing/{slug}/submit",
  summary: "Sign: submit the signer's values",
  description: `Fires \`signer.started\` and \`signer.completed\`. The last signer's submit stamps the values into the PDF, appends the signing certificate, stores the signed document and moves the envelope to \`completed\` (\`envelope.completed\` with the values by field name). Required fields empty, a changed readonly field or an invalid value: 422 listing them. Not this signer's turn, or already signed: 409. ${SIGNING_SECURITY_NOTE}`,
  tags: SIGNING_TAGS,
  request: { params: SlugParams, body: jsonBody(SubmitBody) },
  responses: {
    200: jsonContent(dataOf(z.object({ signer_status: z.literal("completed"), envelope_status: z.string(), completed: z.boolean() })), "Signed"),
    ...errorResponses(400, 403, 404, 409, 410, 415, 422, 429),
  },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const data = await submitSigning(c.var.ctx, {
    signerId: (await signerByCredential(c.var.ctx, c.req.valid("param").slug, "submit")).signerId,
    values: c.req.valid("json").values,
  });
  return c.json({ data }, 200);
};
