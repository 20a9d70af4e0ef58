/** One text message as a provider receives it: the recipient (E.164) and the text. */
export type SmsMessage = { id: string; to: string; body: string };

/** What the provider did: accepted it (`sent`, with its message id), left it in the outbox (`queued`), or refused / could not be reached (`failed`). */
export type SmsOutcome = { status: "sent"; providerMessageId: string | null } | { status: "queued" } | { status: "failed"; error: string };

/**
 * The way out for one-time passcodes (docs/decisions/sms-otp.md). Implementations: `OutboxSms`
 * (development only: nothing leaves, GET /dev/sms shows the message) and `TwilioSms` (Twilio's REST
 * Messages API over `fetch`). Chosen by `smsProvider()` from `SMS_PROVIDER`. The signer's request
 * waits for the answer, so a provider answers within a few seconds.
 */
export interface SmsProvider {
  readonly name: string;
  /** whether the sealed text is kept in the outbox row for GET /dev/sms (the outbox provider only) */
  readonly keepsBody: boolean;
  deliver(message: SmsMessage): Promise<SmsOutcome>;
}
