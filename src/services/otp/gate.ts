import { ApiError, conflict, type ErrorCodesByStatus } from "../../lib/errors";
import type { ShardDb } from "../../lib/shards";
import { maskPhone } from "./mask-phone";
import { getSignerOtp, type SignerOtpRow } from "./repository";

/** What the signing page needs: whether this signer verifies by text first, to which phone (masked), and whether they have. */
export type OtpState = { required: boolean; verified: boolean; phone: string | null; verified_at: string | null };

export const otpStateFrom = (row: SignerOtpRow | null, phone: string | null): OtpState =>
  row ? { required: true, verified: row.verified_at !== null, phone: phone ? maskPhone(phone) : null, verified_at: row.verified_at } : { required: false, verified: false, phone: null, verified_at: null };

export async function otpStateOf(db: ShardDb, signer: { id: string; phone: string | null }): Promise<OtpState> {
  return otpStateFrom(await getSignerOtp(db, signer.id), signer.phone);
}

/** True when no passcode stands between this signer and the document (not asked, or verified). */
export const otpCleared = (state: Pick<OtpState, "required" | "verified">) => !state.required || state.verified;

/**
 * docs/decisions/sms-otp.md: for a signer sent with `auth: "sms_otp"`, the document, `view`, `consent`
 * and `submit` answer 403 `otp_required` until the signer has entered a code texted to their phone. It
 * runs after the KBA gate (identity questions come first) and before consent.
 */
export async function assertOtpVerified(db: ShardDb, signer: { id: string; phone: string | null }): Promise<void> {
  const state = await otpStateOf(db, signer);
  if (otpCleared(state)) return;
  throw new ApiError(
    403,
    "Verify your phone first: ask for a code (POST /signing/:slug/otp) and enter it (POST /signing/:slug/otp/verify)",
    { otp_required: true, phone: state.phone },
    "otp_required",
  );
}

/** The signer's passcode row; 404 `otp_not_required` when this link has none, 409 once verified. */
export function otpRowOrRefuse(row: SignerOtpRow | null): SignerOtpRow {
  if (!row) throw new ApiError(404, "This signing link asks for no text-message code: open the document directly", { otp_required: false }, "otp_not_required");
  if (row.verified_at) throw conflict("This phone is already verified: open the document", { verified_at: row.verified_at }, "otp_already_verified");
  return row;
}

export const OTP_GATE_ERRORS: ErrorCodesByStatus = { 403: ["otp_required"] };
/** What the text-message steps answer on a link that asks for no code, or whose phone is verified. */
export const OTP_STEP_ERRORS: ErrorCodesByStatus = { 404: ["otp_not_required"], 409: ["otp_already_verified"] };
