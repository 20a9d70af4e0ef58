import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, ERROR_CODES_KEY, errorResponses, jsonBody, jsonContent, mergeErrorCodes } from "../../lib/openapi";
import { VERIFY_OTP_ERRORS, verifyOtp } from "../../services/signing/verify-otp";
import { signerByCredential } from "../../services/signers/resolve-credential";
import { SIGNING_SECURITY_NOTE, SIGNING_TAGS, SlugParams, signerRoute } from "./common";
import { KBA_GATE_ERRORS } from "../../services/kba/gate";

const VerifyBody = z
  .strictObject({ code: z.string().trim().regex(/^\d{6}$/, "the 6 digits of the code texted to you").openapi({ description: "The 6-digit code of the last text" }) })
  .openapi("SigningOtpVerifyInput", { example: { code: "042917" } });

const OtpVerifiedSchema = z.object({ verified: z.literal(true), verified_at: z.string() }).openapi("SigningOtpVerified", { example: { verified: true, verified_at: "2026-11-23T09:32:10.000Z" } });

export const route = createRoute(signerRoute({
  method: "post",
  operationId: "verifySigningOtp",
  [ERROR_CODES_KEY]: mergeErrorCodes(VERIFY_OTP_ERRORS, KBA_GATE_ERRORS),
  path: "/signing/{slug}/otp/verify",
  summary: "Enter the one-time passcode",
  description:
    "The code of the last text, within its 10 minutes: the phone is verified (a `signer.otp_verified` audit entry with the masked phone and the time, also on the signing certificate) and the document opens; repeating it answers the same. " +
    "A wrong code: 422 `otp_invalid` (the issue's `attempts_left`); the fifth wrong try spends the code: 422 `otp_attempts_exhausted`. No code waiting (never sent, lapsed or spent): 409 `otp_expired`; ask for a new one. " +
    `A link without the step: 404 \`otp_not_required\`. ${SIGNING_SECURITY_NOTE}`,
  tags: SIGNING_TAGS,
  request: { params: SlugParams, body: jsonBody(VerifyBody) },
  responses: { 200: jsonContent(dataOf(OtpVerifiedSchema), "Verified"), ...errorResponses(400, 403, 404, 409, 410, 415, 422, 429, 503) },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const { signerId } = await signerByCredential(c.var.ctx, c.req.valid("param").slug, "verify a passcode");
  const data = await verifyOtp(c.var.ctx, { signerId, code: c.req.valid("json").code });
  c.header("Cache-Control", "private, no-store");
  return c.json({ data }, 200);
};
