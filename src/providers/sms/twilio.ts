import { readCapped } from "../../lib/read-capped";
import type { SmsMessage, SmsOutcome, SmsProvider } from "./interface";

/** The signer waits for the answer: Twilio normally accepts a message in well under a second. */
export const TWILIO_TIMEOUT_MS = 5_000;
const MAX_ANSWER_BYTES = 8192;
const MAX_MESSAGE_CHARS = 300;

/** Twilio's answer: the message resource (201), or an error (`code`, `message`, `more_info`). */
type TwilioAnswer = { sid?: unknown; code?: unknown; message?: unknown };

export type TwilioConfig = { accountSid: string; authToken: string; from: string; apiBase: string };

/**
 * Twilio's Programmable Messaging REST API: `POST /2010-04-01/Accounts/{AccountSid}/Messages.json`,
 * HTTP Basic auth (account SID, auth token), form-encoded `To`, `From`, `Body`
 * (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource).
 * 201 with the message's `sid` is sent; anything else is failed with Twilio's `code` and `message`.
 */
export class TwilioSms implements SmsProvider {
  readonly name = "twilio";
  readonly keepsBody = false;
  constructor(
    private readonly config: TwilioConfig,
    private readonly timeoutMs = TWILIO_TIMEOUT_MS,
  ) {}

  async deliver(message: SmsMessage): Promise<SmsOutcome> {
    const { accountSid, authToken, from, apiBase } = this.config;
    const url = `${apiBase.replace(/\/+$/, "")}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: {
          Accept: "application/json",
          "Content-Type": "application/x-www-form-urlencoded",
          Authorization: `Basic ${btoa(`${accountSid}:${authToken}`)}`,
        },
        body: new URLSearchParams({ To: message.to, From: from, Body: message.body }).toString(),
        redirect: "manual",
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
      return { status: "failed", error: timedOut ? `Twilio did not answer within ${this.timeoutMs / 1000} s` : `Twilio unreachable: ${String(err)}` };
    }
    const text = (await readCapped(res, MAX_ANSWER_BYTES)) ?? "";
    let answer: TwilioAnswer | null = null;
    try {
      answer = JSON.parse(text) as TwilioAnswer;
    } catch {
      /* not JSON (a proxy's error page, or cut at the cap) */
    }
    if (res.status === 201 || res.status === 200) return { status: "sent", providerMessageId: typeof answer?.sid === "string" ? answer.sid : null };
    const code = typeof answer?.code === "number" ? ` (code ${answer.code})` : "";
    const why = typeof answer?.message === "string" ? answer.message : text;
    return { status: "failed", error: `Twilio answered HTTP ${res.status}${code}: ${why.slice(0, MAX_MESSAGE_CHARS)}` };
  }
}
