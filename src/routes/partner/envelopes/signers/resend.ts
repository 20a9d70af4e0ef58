import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonContent } from "../../../../lib/openapi";
import { RESEND_INVITATION_ERRORS, resendInvitation } from "../../../../services/corrections/resend-invitation";
import { ReissuedSignerSchema } from "../../../../services/corrections/schema";
import { partnerRoute } from "../../common";
import { SignerParams } from "./params";

export const route = createRoute(
  partnerRoute(
    "esign:write",
    {
      method: "post",
      operationId: "resendSignerInvitation",
      [ERROR_CODES_KEY]: RESEND_INVITATION_ERRORS,
      path: "/partner/envelopes/{envelope_id}/signers/{signer_id}/resend",
      summary: "Re-send a signer's invitation email",
      description:
        "Emails the signer a new invitation. The new email carries a new link: the one in the earlier email, and signing links handed out before, stop working (ask `…/signing-links` for fresh ones). At most one re-send per signer per 10 minutes: 429 with `Retry-After` (seconds) and `details.next_resend_at`. `signer_id` is in each signing link (`…/signing-links`, the send's answer). Unknown signer or another organization's envelope: 404. An envelope no longer out for signature, a signer who completed or declined, or a signer whose turn (routing order) has not come: 409.",
      request: { params: SignerParams },
      responses: { 200: jsonContent(dataOf(ReissuedSignerSchema), "The signer; the invitation is queued") },
    },
    [400, 404, 409],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const { envelope_id, signer_id } = c.req.valid("param");
  return c.json({ data: await resendInvitation(c.var.ctx, { envelopeId: envelope_id, signerId: signer_id }) }, 200);
};
