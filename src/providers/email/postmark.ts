import type { EmailOutcome, EmailTransport, OutboxEmail } from "./interface";
import { readCapped } from "../../lib/read-capped";

/** The sender's request waits for the answer: a Postmark send normally takes well under a second. */
export const POSTMARK_TIMEOUT_MS = 5_000;
/** Postmark's answers are a few hundred bytes; nothing past this is read. */
const MAX_ANSWER_BYTES = 4096;
const MAX_MESSAGE_CHARS = 300;

/**
 * Postmark ErrorCodes that refuse this email for good: sending it again cannot succeed. Others (sender
 * signature not confirmed 400/401, account pending 412, sending not allowed 405…) are fixed in the
 * Postmark account, so they are retried with backoff.
 * https://postmarkapp.com/developer/api/overview#error-codes
 */
const PERMANENT_ERROR_CODES = new Set([
  300, // Invalid email request (bad address, missing field)
  406, // Inactive recipient (hard bounce, spam complaint, manual suppression)
]);

export type PostmarkConfig = { token: string; from: string; messageStream: string; apiBase: string };

/** Postmark's answer to POST /email, success and refusal alike. */
type PostmarkAnswer = { ErrorCode?: unknown; Message?: unknown; MessageID?: unknown };

/**
 * The production transport: Postmark's Email API (`POST /email`, one request per email,
 * https://postmarkapp.com/developer/api/email-api). 200 with `ErrorCode: 0` is sent; a non-zero
 * ErrorCode (422) is failed with Postmark's message, permanent for a bad or suppressed recipient;
 * 401, 429, 5xx, a network error or the timeout are failed and retried.
 */
export class PostmarkTransport implements EmailTransport {
  constructor(
    private readonly config: PostmarkConfig,
    private readonly timeoutMs = POSTMARK_TIMEOUT_MS,
  ) {}

  async deliver(email: OutboxEmail): Promise<EmailOutcome> {
    let res: Response;
    try {
      res = await fetch(`${this.config.apiBase.replace(/\/+$/, "")}/email`, {
        method: "POST",
        headers: {
          Accept: "application/json",
          "Content-Type": "application/json",
          "X-Postmark-Server-Token": this.config.token,
        },
        body: JSON.stringify(postmarkMessage(this.config, email)),
        redirect: "manual",
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
      return { status: "failed", error: timedOut ? `Postmark did not answer within ${this.timeoutMs / 1000} s` : `Postmark unreachable: ${String(err)}` };
    }
    const text = (await readCapped(res, MAX_ANSWER_BYTES)) ?? "";
    let answer: PostmarkAnswer | null = null;
    try {
      answer = JSON.parse(text) as PostmarkAnswer;
    } catch {
      /* not JSON (a proxy's error page, or cut at the cap) */
    }
    const code = typeof answer?.ErrorCode === "number" ? answer.ErrorCode : null;
    const message = typeof answer?.Message === "string" ? answer.Message : text.slice(0, MAX_MESSAGE_CHARS);
    if (res.status === 200 && code === 0) return { status: "sent" };
    if (code !== null && code !== 0) {
      return {
        status: "failed",
        error: `Postmark refused the email (HTTP ${res.status}, ErrorCode ${code}): ${message.slice(0, MAX_MESSAGE_CHARS)}`,
        retry: PERMANENT_ERROR_CODES.has(code) ? "never" : "backoff",
      };
    }
    return { status: "failed", error: `Postmark answered HTTP ${res.status}${message ? `: ${message.slice(0, MAX_MESSAGE_CHARS)}` : ""}` };
  }
}

/** The JSON body of POST /email. */
export function postmarkMessage(config: Pick<PostmarkConfig, "from" | "messageStream">, email: OutboxEmail) {
  return {
    From: config.from,
    To: mailbox(email.to.name, email.to.email),
    Subject: email.subject,
    TextBody: email.text,
    HtmlBody: email.html,
    MessageStream: config.messageStream,
    Tag: email.kind,
    Metadata: { email_id: email.id },
  };
}

/**
 * `"Name" <address>`: the display name as an RFC 5322 quoted string, so a comma, angle bracket or
 * quote in a signer's name cannot add a recipient or change the address. Line breaks and other
 * control characters are dropped; backslash and quote are escaped.
 */
export function mailbox(name: string, address: string): string {
  const clean = name.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  if (!clean) return address;
  return `"${clean.replace(/[\\"]/g, (c) => `\\${c}`)}" <${address}>`;
}

