import type { RateLimiter } from "../durable-objects/rate-limiter";

export type Env = {
  DB: D1Database;
  DOCS: R2Bucket;
  ASSETS: Fetcher;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  WEBHOOK_QUEUE: Queue<OutboxMessage>;

  OPERATOR_TOKEN?: string;
  SESSION_JWT_SECRET?: string;
  EMBED_TOKEN_SECRET?: string;
  STORAGE_URL_SECRET?: string;
  EMBED_HOST: string;
  SIGNING_HOST: string;
  STORAGE_HOST: string;
  WEBHOOK_URL_POLICY?: "public-https" | "allow-loopback";
  STRIPE_SECRET_KEY?: string;
  STRIPE_PUBLISHABLE_KEY?: string;
  STRIPE_WEBHOOK_SECRET?: string;
  STRIPE_API_BASE?: string;
  /** "true" serves the dev-only pages (GET /dev/emails); anything else answers 404. Never set in production. */
  DEV_PAGES?: string;
};

/**
 * Message on WEBHOOK_QUEUE: an outbox event to fan out, or a webhook delivery to send. The database
 * rows are the truth; a lost message only waits for the cron relay (events) or sweep (deliveries).
 */
export type OutboxMessage = { kind: "event"; event_id: string } | { kind: "delivery"; delivery_id: string };

export type SecretName =
  | "OPERATOR_TOKEN"
  | "SESSION_JWT_SECRET"
  | "EMBED_TOKEN_SECRET"
  | "STORAGE_URL_SECRET"
  | "STRIPE_SECRET_KEY"
  | "STRIPE_WEBHOOK_SECRET";
