import type { EmailOutcome, EmailTransport } from "./interface";

/**
 * The default transport: delivers nothing. Every email stays `queued` in the outbox, readable on the
 * dev-only page GET /dev/emails (DEV_PAGES=true), so local development and tests never send mail.
 */
export class OutboxOnlyTransport implements EmailTransport {
  async deliver(): Promise<EmailOutcome> {
    return { status: "queued" };
  }
}
