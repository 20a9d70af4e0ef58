import type { BulkBatchWorkflow } from "../durable-objects/bulk-batch";
import type { RateLimiter } from "../durable-objects/rate-limiter";

export type Env = {
  /** the global database (docs/decisions/shards.md): organizations, credentials, placement, configuration */
  DB: D1Database;
  /**
   * The shards, `SHARD_1`, `SHARD_2`, …: per-envelope records (docs/decisions/shards.md). Without `SHARD_1` the
   * deployment is one database and `DB` is its shard 1. A shard is registered with
   * `PATCH /operator/shards/:shard_id` once bound and migrated (docs/deploy.md).
   */
  SHARD_1?: D1Database;
  SHARD_2?: D1Database;
  [shard: `SHARD_${number}`]: D1Database | undefined;
  DOCS: R2Bucket;
  ASSETS: Fetcher;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  /** one Durable Object per bulk-send batch (README.md#architecture); absent: bulk send is not configured (submit is 503) */
  BULK_BATCH?: DurableObjectNamespace<BulkBatchWorkflow>;
  /** one instance per accepted pool of vaulted records: moves its records (src/jobs/pool-transfer.ts) */
  POOL_TRANSFER?: DurableObjectNamespace<BulkBatchWorkflow>;
  /** "true" only in the test configuration: enables the bulk workflow's crash injection. Never set in production. */
  BULK_TEST_HOOKS?: string;
  WEBHOOK_QUEUE: Queue<OutboxMessage>;
  /** per-client-address flood limit of the routes whose credential is in the URL or a bearer token (signer API, embed session) */
  SIGNER_LIMITER: RateLimit;

  OPERATOR_TOKEN?: string;
  SESSION_JWT_SECRET?: string;
  EMBED_TOKEN_SECRET?: string;
  STORAGE_URL_SECRET?: string;
  EMBED_HOST: string;
  SIGNING_HOST: string;
  STORAGE_HOST: string;
  /**
   * `development` (written by `npm run dev`, the tests and the bench) or `production`; unset, or any
   * other value, is production. In production the development-only settings below (`KBA_PROVIDER=sandbox`,
   * `EMAIL_TRANSPORT=outbox` or unset, `DEV_PAGES=true`, `WEBHOOK_URL_POLICY=allow-loopback`) are
   * refused: the first request that needs one answers 503 naming the variable (src/lib/service-env.ts).
   */
  SERVICE_ENV?: string;
  /**
   * `public-https` or `allow-loopback` (development only: refused in production, see SERVICE_ENV). Unset:
   * `allow-loopback` in development, `public-https` otherwise (src/services/webhooks/url-policy.ts).
   */
  WEBHOOK_URL_POLICY?: "public-https" | "allow-loopback";
  STRIPE_SECRET_KEY?: string;
  STRIPE_PUBLISHABLE_KEY?: string;
  STRIPE_WEBHOOK_SECRET?: string;
  /** Stripe API origin; default https://api.stripe.com (tests and local development point it at a stand-in) */
  STRIPE_API_BASE?: string;
  /**
   * Faults on demand (development only; docs/decisions/fault-layer.md): `<target>.<kind>=<rate>[/<limit>]`, comma-separated,
   * e.g. `d1.error=0.01,r2.error=0.01,queue.duplicate=0.01` (src/lib/faults.ts). Set in production: every request answers 503 naming it.
   */
  FAULTS?: string;
  /** how long a `timeout` fault waits before it throws, in ms; default 200 */
  FAULT_TIMEOUT_MS?: string;
  /** "true" serves the dev-only pages (GET /dev/emails) in development; anything else answers 404; "true" in production answers 503. */
  DEV_PAGES?: string;
  /** how email leaves the service: "postmark", or "outbox" (nothing leaves, rows stay queued; development only, the default there). Unset or "outbox" in production: a send that emails answers 503 naming it. */
  EMAIL_TRANSPORT?: string;
  /** sender of every email, e.g. `"Dealer Finance" <sign@example.com>` (a Postmark sender signature); required for postmark */
  EMAIL_FROM?: string;
  /** Postmark server API token (secret); required for postmark */
  POSTMARK_SERVER_TOKEN?: string;
  /** Postmark message stream; default "outbound" (the transactional stream) */
  POSTMARK_MESSAGE_STREAM?: string;
  /** Postmark API origin; default https://api.postmarkapp.com (tests point it at a local stand-in) */
  POSTMARK_API_BASE?: string;
  /** how one-time passcodes leave (src/providers/sms): "twilio", or "outbox" (nothing leaves, GET /dev/sms lists them; development only, the default there). Unset or "outbox" in production: sending a code answers 503 naming it. */
  SMS_PROVIDER?: string;
  /** Twilio account SID (AC…); required for twilio */
  TWILIO_ACCOUNT_SID?: string;
  /** Twilio auth token (secret); required for twilio */
  TWILIO_AUTH_TOKEN?: string;
  /** the sending number, E.164 (or a Messaging Service SID); required for twilio */
  TWILIO_FROM_NUMBER?: string;
  /** Twilio API origin; default https://api.twilio.com (tests point it at a local stand-in) */
  TWILIO_API_BASE?: string;
  /** the KBA provider (src/providers/kba): `sandbox` (deterministic, development only: 503 in production); unset: sending a KBA envelope is 503 */
  KBA_PROVIDER?: string;
  /** the PAdES seal's private key, PKCS#8 PEM (RSA or ECDSA P-256/P-384; secret); required to complete a signing */
  SEAL_PRIVATE_KEY?: string;
  /** the seal's certificate, PEM, followed by any intermediate certificates; required to complete a signing */
  SEAL_CERTIFICATE?: string;
  /** RFC 3161 timestamp authority for the seal (PAdES B-T); empty (default): no timestamp */
  SEAL_TSA_URL?: string;
  /** minutes auto-vault waits after completion for the seal to reach its configured evidence level (docs/evidence.md); default 60 */
  SEAL_EVIDENCE_WAIT_MINUTES?: string;
  /** seal certificates renewed away from (PEM, one after another): published as retired at GET /api/v2/seal-certificates */
  SEAL_RETIRED_CERTIFICATES?: string;
};

/**
 * Message on WEBHOOK_QUEUE: an outbox event to fan out, or a webhook delivery to send. The database
 * rows are the truth; a lost message only waits for the cron relay (events) or sweep (deliveries).
 */
export type OutboxMessage =
  | { kind: "event"; event_id: string }
  | { kind: "delivery"; delivery_id: string }
  /** past 8 bound shards, the minute cron's turn of one shard: its jobs run in the consumer (src/jobs/minute.ts) */
  | { kind: "shard_tick"; shard: number; at: string };

export type SecretName =
  | "OPERATOR_TOKEN"
  | "SESSION_JWT_SECRET"
  | "EMBED_TOKEN_SECRET"
  | "STORAGE_URL_SECRET"
  | "STRIPE_SECRET_KEY"
  | "STRIPE_PUBLISHABLE_KEY"
  | "STRIPE_WEBHOOK_SECRET"
  | "POSTMARK_SERVER_TOKEN"
  | "SEAL_PRIVATE_KEY"
  | "SEAL_CERTIFICATE";
