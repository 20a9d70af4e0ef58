import type { Env } from "../../env";
import type { ApiError } from "../../lib/errors";
import { notConfigured } from "../../lib/errors";
import { developmentOnly, isDevelopment } from "../../lib/service-env";
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

/**
 * Why production cannot send email with this configuration, or null: `EMAIL_TRANSPORT` unset (no
 * silent outbox in production) or `outbox` (development only: invitations would never leave).
 */
export function productionEmailProblem(env: Pick<Env, "EMAIL_TRANSPORT" | "SERVICE_ENV">): ApiError | null {
  if (isDevelopment(env)) return null;
  const choice = env.EMAIL_TRANSPORT?.trim();
  if (!choice) return notConfigured("EMAIL_TRANSPORT");
  if (choice === "outbox") return developmentOnly("EMAIL_TRANSPORT", "outbox");
  return null;
}

/**
 * For a request about to commit a change that queues email (a send, a bulk submit): 503 naming
 * `EMAIL_TRANSPORT` when production has no transport, before anything is committed. A chosen
 * transport missing one of its own variables is not refused here: its emails are held and go out
 * once the variable is set (NotConfiguredTransport).
 */
export function assertEmailCanLeave(env: Pick<Env, "EMAIL_TRANSPORT" | "SERVICE_ENV">): void {
  const problem = productionEmailProblem(env);
  if (problem) throw problem;
}

export function emailTransportConfig(env: Env): EmailTransportConfig {
  const refused = productionEmailProblem(env);
  if (refused) return { kind: "not_configured", problem: refused.message };
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
 * The configured email transport (`EMAIL_TRANSPORT`): outbox-only (development's default: no mail
 * leaves the service), Postmark, or, when the chosen transport lacks a variable or production has
 * none, one that fails every email naming it (held for the retry job, never lost).
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
