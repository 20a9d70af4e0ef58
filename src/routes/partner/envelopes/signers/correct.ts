import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent } from "../../../../lib/openapi";
import { CORRECT_SIGNER_ERRORS, correctSigner } from "../../../../services/corrections/correct-signer";
import { CorrectSignerBody, ReissuedSignerSchema } from "../../../../services/corrections/schema";
import { partnerRoute } from "../../common";
import { SignerParams } from "./params";

export const route = createRoute(
  partnerRoute(
    "esign:write",
    {
      method: "patch",
      operationId: "correctSigner",
      [ERROR_CODES_KEY]: CORRECT_SIGNER_ERRORS,
      path: "/partner/envelopes/{envelope_id}/signers/{signer_id}",
      summary: "Correct a signer's name, email or phone",
      description:
        "Before the signer finishes: sets the fields given (`phone` E.164, null removes it). The signer's old link dies at once, as do signing links handed out before; a new invitation is emailed when it is the signer's turn (else when it comes); KBA starts over for a signer it challenges; the audit log names each change. Bad fields or none: 422. Unknown signer or another organization's envelope: 404. An envelope no longer out for signature, a signer who completed or declined, or a new email for a signer a KBA envelope does not challenge: 409.",
      request: { params: SignerParams, body: jsonBody(CorrectSignerBody) },
      responses: { 200: jsonContent(dataOf(ReissuedSignerSchema), "The corrected signer") },
    },
    [400, 404, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const { envelope_id, signer_id } = c.req.valid("param");
  return c.json({ data: await correctSigner(c.var.ctx, { envelopeId: envelope_id, signerId: signer_id, body: c.req.valid("json") }) }, 200);
};
