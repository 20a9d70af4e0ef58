import type { EmailOutcome, EmailTransport } from "./interface";

/**
 * Stands in for a transport that was chosen (`EMAIL_TRANSPORT`) but lacks a variable it needs. The
 * email is already committed with the change that queued it, so a 503 here would answer "failed" for
 * a send that happened: instead every email is `failed` naming the variable, held (attempts
 * unchanged) until the variable is set, when the cron retry job delivers it.
 */
export class NotConfiguredTransport implements EmailTransport {
  constructor(readonly problem: string) {}

  async deliver(): Promise<EmailOutcome> {
    return { status: "failed", error: this.problem, retry: "when_configured" };
  }
}
