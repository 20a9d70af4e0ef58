import type { Env } from "../../env";
import type { EmailTransport } from "./interface";
import { NotConfiguredTransport } from "./not-configured";
import { OutboxOnlyTransport } from "./outbox-only";
import { PostmarkTransport, type PostmarkConfig } from "./postmark";

export type { EmailOutcome, EmailTransport, OutboxEmail } from "./interface";

const POSTMARK_API_BASE = "https://api.postmarkapp.com";
const POSTMARK_MESSAGE_STREAM = "outbound";

/** What `EMAIL_TRANSPORT` and its variables select; `not_configured` names what is missing. */
export type EmailTransportConfig =
  | { kind: "outbox" }
  | { kind: "postmark"; postmark: PostmarkConfig }
  | { kind: "not_configured"; problem: string };

export function emailTransportConfig(env: Env): EmailTransportConfig {
  const choice = env.EMAIL_TRANSPORT?.trim() || "outbox";
  if (choice === "outbox") return { kind: "outbox" };
  if (choice !== "postmark") return { kind: "not_configured", problem: `Email not configured: EMAIL_TRANSPORT is "${choice}"; expected outbox or postmark` };
  const missing = (["POSTMARK_SERVER_TOKEN", "EMAIL_FROM"] as const).filter((name) => !env[name]?.trim());
  if (missing.length > 0) return { kind: "not_configured", problem: `Email not configured: EMAIL_TRANSPORT is postmark but ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not set` };
  return {
    kind: "postmark",
    postmark: {
      token: env.POSTMARK_SERVER_TOKEN!.trim(),
      from: env.EMAIL_FROM!.trim(),
      messageStream: env.POSTMARK_MESSAGE_STREAM?.trim() || POSTMARK_MESSAGE_STREAM,
      apiBase: env.POSTMARK_API_BASE?.trim() || POSTMARK_API_BASE,
    },
  };
}

/**
 * The configured email transport (`EMAIL_TRANSPORT`): the outbox-only default (no mail leaves the
 * service), Postmark, or, when the chosen transport lacks a variable, one that fails every email
 * naming it (held for the retry job, never lost).
 */
export function emailTransport(env: Env, config = emailTransportConfig(env)): EmailTransport {
  switch (config.kind) {
    case "outbox":
      return new OutboxOnlyTransport();
    case "postmark":
      return new PostmarkTransport(config.postmark);
    case "not_configured":
      return new NotConfiguredTransport(config.problem);
  }
}
