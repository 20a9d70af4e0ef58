import type { Env } from "../../env";
import type { EmailTransport } from "./interface";
import { OutboxOnlyTransport } from "./outbox-only";

export type { EmailOutcome, EmailTransport, OutboxEmail } from "./interface";

/** The configured email transport: today always the outbox-only default (no mail leaves the service). */
export function emailTransport(_env: Env): EmailTransport {
  return new OutboxOnlyTransport();
}
