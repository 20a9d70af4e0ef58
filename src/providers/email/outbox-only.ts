import type { EmailOutcome, EmailTransport } from "./interface";

/**
 * Development's default transport: delivers nothing. Every email stays `queued` in the outbox,
 * readable on the dev-only page GET /dev/emails (DEV_PAGES=true), so local development and tests never
 * send mail. Never chosen in production (SERVICE_ENV): there a send that emails answers 503 instead.
 */
export class OutboxOnlyTransport implements EmailTransport {
  async deliver(): Promise<EmailOutcome> {
    return { status: "queued" };
  }
}
