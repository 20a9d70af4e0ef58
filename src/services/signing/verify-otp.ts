import { OTP_MAX_ATTEMPTS } from "../../db/schema";
import type { RequestContext } from "../../lib/context";
import { ApiError, conflict, type ErrorCodesByStatus, mergeErrorCodes } from "../../lib/errors";
import { assertKbaCleared } from "../kba/gate";
import { signerData } from "../signers/signer-actor";
import { commitSignerChange } from "./commit-signer-change";
import { otpCodeMatches } from "../otp/code";
import { maskPhone } from "../otp/mask-phone";
import { getSignerOtp, signerOtpVerified, signerOtpWrongCode } from "../otp/repository";
import { OTP_STEP_ERRORS, otpRowOrRefuse } from "../otp/gate";

export type OtpVerified = { verified: true; verified_at: string };

/**
 * POST /signing/:slug/otp/verify `{ code }`: the code texted last, within its 10 minutes and 5 tries.
 * Right: `verified_at` and a `signer.otp_verified` audit entry (phone masked, time) in one commit; the
 * document opens. Wrong: 422 `otp_invalid` with `attempts_left`; the fifth wrong try spends the code.
 * No code sent, lapsed or spent: 409 `otp_expired` (ask for a new one). Already verified: answers the
 * verification again.
 */
export async function verifyOtp(ctx: RequestContext, input: { signerId: string; code: string }): Promise<OtpVerified> {
  return commitSignerChange(ctx, input.signerId, async (sc, at) => {
    const { signer, envelope } = sc;
    const existing = await getSignerOtp(ctx.db, signer.id);
    if (existing?.verified_at) return { change: null, result: { verified: true as const, verified_at: existing.verified_at } };
    const row = otpRowOrRefuse(existing);
    await assertKbaCleared(ctx.db, signer.id);
    if (!row.code_hash || !row.code_expires_at || row.code_expires_at <= at) {
      throw conflict("No code is waiting: it expired, was used up, or none was sent. Ask for a new code", { expired: true }, "otp_expired");
    }
    if (!(await otpCodeMatches(ctx.env, signer.id, input.code, row.code_hash))) {
      // outside the envelope's commit: a wrong guess is no audit entry, only a count
      const left = OTP_MAX_ATTEMPTS - (await signerOtpWrongCode(ctx.db, signer.id, OTP_MAX_ATTEMPTS));
      const message = left > 0 ? `That code is not right: ${left} ${left === 1 ? "try" : "tries"} left` : "That code is not right, and it has now been tried too many times: ask for a new code";
      const code = left > 0 ? "otp_invalid" : "otp_attempts_exhausted";
      throw new ApiError(422, message, [{ code, expected: "the 6-digit code texted last", received: "another code", path: ["code"], message, attempts_left: left }], code);
    }
    const data = { envelope_id: envelope.id, ...signerData(signer), phone: signer.phone ? maskPhone(signer.phone) : null, verified_at: at };
    return {
      change: { entries: [{ action: "signer.otp_verified" as const, data }], statements: [signerOtpVerified(ctx.db, signer.id, at)] },
      result: { verified: true as const, verified_at: at },
    };
  });
}

export const VERIFY_OTP_ERRORS: ErrorCodesByStatus = mergeErrorCodes(OTP_STEP_ERRORS, { 409: ["otp_expired"], 422: ["otp_invalid", "otp_attempts_exhausted"] });
