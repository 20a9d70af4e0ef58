import type { Env } from "../../env";
import { ApiError, type ErrorCodesByStatus } from "../../lib/errors";
import { refuseInProduction } from "../../lib/service-env";
import type { SmsProvider } from "./interface";
import { OutboxSms } from "./outbox";
import { TwilioSms } from "./twilio";

export type { SmsMessage, SmsOutcome, SmsProvider } from "./interface";

const TWILIO_API_BASE = "https://api.twilio.com";
const TWILIO_SETTINGS = ["TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_FROM_NUMBER"] as const;

const smsNotConfigured = (message: string, details: Record<string, unknown>) => new ApiError(503, `SMS not configured: ${message}`, details, "sms_not_configured");

/**
 * The configured SMS provider (`SMS_PROVIDER`): `twilio` (its three settings required) or `outbox`
 * (development only: nothing leaves; refused in production like EMAIL_TRANSPORT=outbox). Unset: the
 * outbox in development, a 503 naming SMS_PROVIDER in production. Called where a request first needs
 * it: sending an envelope with an `sms_otp` signer (so nothing is sent that could never be verified),
 * and sending a code.
 */
export function smsProvider(env: Env): SmsProvider {
  const choice = env.SMS_PROVIDER?.trim() || "";
  if (choice === "" || choice === "outbox") {
    refuseInProduction(env, "SMS_PROVIDER", choice || "(unset)");
    return new OutboxSms();
  }
  if (choice !== "twilio") throw smsNotConfigured(`SMS_PROVIDER is "${choice}"; expected twilio or outbox`, { variable: "SMS_PROVIDER", value: choice });
  const missing = TWILIO_SETTINGS.filter((name) => !env[name]?.trim());
  if (missing.length) throw smsNotConfigured(`SMS_PROVIDER is twilio but ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} not set`, { variables: missing });
  return new TwilioSms({
    accountSid: env.TWILIO_ACCOUNT_SID!.trim(),
    authToken: env.TWILIO_AUTH_TOKEN!.trim(),
    from: env.TWILIO_FROM_NUMBER!.trim(),
    apiBase: env.TWILIO_API_BASE?.trim() || TWILIO_API_BASE,
  });
}

export const SMS_ERRORS: ErrorCodesByStatus = { 503: ["sms_not_configured"] };
