import type { SmsOutcome, SmsProvider } from "./interface";

/** Development's provider: delivers nothing; the message stays `queued`, readable on GET /dev/sms (DEV_PAGES=true). */
export class OutboxSms implements SmsProvider {
  readonly name = "outbox";
  readonly keepsBody = true;
  async deliver(): Promise<SmsOutcome> {
    return { status: "queued" };
  }
}
