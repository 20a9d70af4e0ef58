import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, ERROR_CODES_KEY, errorResponses, jsonContent, mergeErrorCodes } from "../../lib/openapi";
import { SEND_OTP_ERRORS, sendOtp } from "../../services/signing/send-otp";
import { signerByCredential } from "../../services/signers/resolve-credential";
import { SIGNING_SECURITY_NOTE, SIGNING_TAGS, SlugParams, signerRoute } from "./common";
import { KBA_GATE_ERRORS } from "../../services/kba/gate";

const OtpSentSchema = z
  .object({
    phone: z.string().openapi({ description: "Where the code went, masked" }),
    expires_at: z.string().openapi({ description: "When the code lapses (10 minutes)" }),
    resend_at: z.string().openapi({ description: "When another code may be asked for (1 minute)" }),
    sends_left_today: z.int().openapi({ description: "Codes still allowed in the rolling 24 hours (5 in all)" }),
  })
  .openapi("SigningOtpSent", { example: { phone: "+1******4567", expires_at: "2026-11-23T09:40:00.000Z", resend_at: "2026-11-23T09:31:00.000Z", sends_left_today: 4 } });

export const route = createRoute(signerRoute({
  method: "post",
  operationId: "sendSigningOtp",
  [ERROR_CODES_KEY]: mergeErrorCodes(SEND_OTP_ERRORS, KBA_GATE_ERRORS),
  path: "/signing/{slug}/otp",
  summary: "Text the signer a one-time passcode (signers with auth sms_otp)",
  description:
    "Sends a new 6-digit code to the signer's phone; it replaces any earlier code and works for 10 minutes and 5 tries (POST /signing/{slug}/otp/verify). After KBA where required (403 `kba_required`). " +
    "At most one code a minute (429 `otp_send_limit`) and five in any rolling 24 hours (429 `otp_daily_limit`), each with `Retry-After` in seconds. " +
    "A link without the step: 404 `otp_not_required`; verified already: 409 `otp_already_verified`; the SMS provider refused the text: 503 `sms_not_sent` (it counts toward the limits); no provider configured: 503 naming `SMS_PROVIDER`. " +
    `Each code sent is a \`sms_otp\` usage line and a \`signer.otp_sent\` audit entry (phone masked, never the code). ${SIGNING_SECURITY_NOTE}`,
  tags: SIGNING_TAGS,
  request: { params: SlugParams },
  responses: { 200: jsonContent(dataOf(OtpSentSchema), "The code was sent"), ...errorResponses(400, 403, 404, 409, 410, 415, 429, 503) },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const data = await sendOtp(c.var.ctx, { signerId: (await signerByCredential(c.var.ctx, c.req.valid("param").slug, "text a passcode")).signerId });
  c.header("Cache-Control", "private, no-store");
  return c.json({ data }, 200);
};
