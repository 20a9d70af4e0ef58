import { OTP_CODE_TTL_SECONDS, OTP_SEND_INTERVAL_SECONDS, OTP_SENDS_PER_DAY } from "../../db/schema";
import type { RequestContext } from "../../lib/context";
import { ApiError, conflict, type ErrorCodesByStatus, mergeErrorCodes } from "../../lib/errors";
import { requireSecret } from "../../lib/secrets";
import { sealText } from "../../lib/sealed-text";
import { newShardId } from "../../lib/shards";
import { addSeconds } from "../../lib/time";
import { SMS_ERRORS, smsProvider } from "../../providers/sms";
import { assertKbaCleared } from "../kba/gate";
import { signerData } from "../signers/signer-actor";
import { commitSignerChange } from "./commit-signer-change";
import { usageLineInsert } from "../usage/record-usage";
import { newOtpCode, otpCodeHash, SMS_BODY_LABEL } from "../otp/code";
import { maskPhone } from "../otp/mask-phone";
import { OTP_STEP_ERRORS, otpRowOrRefuse } from "../otp/gate";
import { getSignerOtp, sendTimesSince, signerOtpNewCode, smsOutboxInsert, smsOutboxOutcome } from "../otp/repository";

export type OtpSent = { phone: string; expires_at: string; resend_at: string; sends_left_today: number };

const secondsBetween = (from: string, to: string) => Math.max(1, Math.ceil((Date.parse(to) - Date.parse(from)) / 1000));

/**
 * POST /signing/:slug/otp (docs/decisions/sms-otp.md): texts a new 6-digit code to the signer's phone.
 * After KBA; at most one a minute and five in any rolling day (429 with Retry-After, `otp_send_limit`
 * or `otp_daily_limit`). One commit records the code's HMAC (never the code), the outbox row, the
 * `sms_otp` usage line and a `signer.otp_sent` audit entry with the phone masked; the text leaves after
 * it. A provider that refuses the text: 503 `sms_not_sent` (the send still counts toward the limits).
 */
export async function sendOtp(ctx: RequestContext, input: { signerId: string }): Promise<OtpSent> {
  const provider = smsProvider(ctx.env);
  const secret = requireSecret(ctx.env, "EMBED_TOKEN_SECRET");
  const code = newOtpCode();
  const messageId = newShardId("smsMessage", ctx.shardId);
  const planned = await commitSignerChange(ctx, input.signerId, async (sc, at) => {
    const { signer, envelope } = sc;
    const row = otpRowOrRefuse(await getSignerOtp(ctx.db, signer.id));
    await assertKbaCleared(ctx.db, signer.id);
    if (signer.status === "completed") throw conflict("This signer has already signed", { signer_status: signer.status });
    if (!signer.phone) throw conflict("This signer has no phone number to text: ask the sender to correct it", { phone: null }, "otp_no_phone");
    if (row.last_sent_at) {
      const next = addSeconds(row.last_sent_at, OTP_SEND_INTERVAL_SECONDS);
      if (next > at) {
        throw new ApiError(429, "A code was sent less than a minute ago: wait before asking for another", { retry_after: secondsBetween(at, next), resend_at: next }, "otp_send_limit");
      }
    }
    const today = await sendTimesSince(ctx.db, signer.id, addSeconds(at, -86_400));
    if (today.length >= OTP_SENDS_PER_DAY) {
      const resets = addSeconds(today[0]!, 86_400);
      throw new ApiError(429, `${OTP_SENDS_PER_DAY} codes were sent in the last 24 hours: try again later`, { retry_after: secondsBetween(at, resets), resets_at: resets }, "otp_daily_limit");
    }
    const expiresAt = addSeconds(at, OTP_CODE_TTL_SECONDS);
    const masked = maskPhone(signer.phone);
    const body = `${code} is your code to open "${envelope.name}" for signing. It expires in 10 minutes. Do not share it.`;
    const statements = [
      signerOtpNewCode(ctx.db, signer.id, { codeHash: await otpCodeHash(ctx.env, signer.id, code), expiresAt, at }),
      smsOutboxInsert(ctx.db, {
        id: messageId,
        org_id: envelope.org_id,
        envelope_id: envelope.id,
        signer_id: signer.id,
        to_masked: masked,
        provider: provider.name,
        status: "queued",
        body_sealed: provider.keepsBody ? await sealText({ secret, label: SMS_BODY_LABEL, context: messageId, plain: body }) : null,
        created_at: at,
      }),
      usageLineInsert(ctx.db, {
        orgId: envelope.org_id,
        kind: "sms_otp",
        envelopeId: envelope.id,
        signerId: signer.id,
        description: `SMS passcode to ${masked} for ${envelope.name}`.slice(0, 300),
        uniqueKey: `sms_otp:${messageId}`,
        at,
      }),
    ];
    const data = { envelope_id: envelope.id, ...signerData(signer), phone: masked, message_id: messageId, provider: provider.name, expires_at: expiresAt };
    return {
      change: { entries: [{ action: "signer.otp_sent" as const, data }], statements },
      result: {
        to: signer.phone,
        body,
        sent: { phone: masked, expires_at: expiresAt, resend_at: addSeconds(at, OTP_SEND_INTERVAL_SECONDS), sends_left_today: OTP_SENDS_PER_DAY - today.length - 1 },
      },
    };
  });
  let outcome;
  try {
    outcome = await provider.deliver({ id: messageId, to: planned.to, body: planned.body });
  } catch (err) {
    outcome = { status: "failed" as const, error: String(err).slice(0, 300) };
  }
  await smsOutboxOutcome(ctx.db, messageId, {
    status: outcome.status,
    providerMessageId: outcome.status === "sent" ? outcome.providerMessageId : null,
    error: outcome.status === "failed" ? outcome.error : null,
  });
  if (outcome.status === "failed") {
    throw new ApiError(503, "The text message could not be sent; try again in a minute", { retry_after: OTP_SEND_INTERVAL_SECONDS, resend_at: planned.sent.resend_at }, "sms_not_sent");
  }
  return planned.sent;
}

export const SEND_OTP_ERRORS: ErrorCodesByStatus = mergeErrorCodes(OTP_STEP_ERRORS, SMS_ERRORS, { 409: ["otp_no_phone"], 429: ["otp_send_limit", "otp_daily_limit"], 503: ["sms_not_sent"] });
