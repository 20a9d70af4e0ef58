import { z } from "@hono/zod-openapi";
import { DELIVERY_STATUSES } from "../../db/schema";
import { ListEnvelopesQuery, Timestamp } from "../envelopes/schema";
import { isValidSelector } from "./selectors";
import { MAX_URL_LENGTH } from "./url-policy";

/** Spec part 8; the database trigger `webhook_endpoint_limit` (migrations/0003) holds the same number. */
export const WEBHOOK_ENDPOINT_LIMIT = 25;

export const SECRET_NOTE =
  "Store this secret now: it is shown only here (and again only when rotated). Use it to verify X-Service-Signature and webhook-signature on every delivery.";

const EndpointId = z.string().openapi({ example: "whep_4k9m2x7q1c8v5b3n6p0r2t4w6y" });
const DeliveryId = z.string().openapi({ example: "wdel_7h3k9m2x4q1c8v5b3n6p0r2t4w" });

const Url = z
  .string()
  .min(1)
  .max(MAX_URL_LENGTH)
  .openapi({ description: "Public HTTPS URL on port 443 (no credentials, no private or metadata hosts)", example: "https://hooks.lender.example/esign" });

const Selector = z
  .string()
  .max(100)
  .refine(isValidSelector, {
    message: "Unknown event selector: use an event type from GET /webhooks/events, a domain wildcard such as envelope.*, or *",
  });

const Selectors = z
  .array(Selector)
  .min(1)
  .max(50)
  .openapi({ description: "Selectors: an exact event type, `<domain>.*`, or `*`", example: ["envelope.completed", "vault.*"] });

const Description = z.string().trim().max(500);

export const CreateEndpointBody = z
  .object({ url: Url, description: Description.optional(), events: Selectors })
  .openapi("CreateWebhookEndpoint", {
    example: { url: "https://hooks.lender.example/esign", description: "Loan funding", events: ["envelope.completed", "vault.*"] },
  });

/** Strict: a misspelt field (say `active` for `is_active`) is a 422, never a silent no-op. */
export const UpdateEndpointBody = z
  .strictObject({ url: Url.optional(), description: Description.optional(), events: Selectors.optional(), is_active: z.boolean().optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: "Send at least one of url, description, events, is_active" })
  .openapi("UpdateWebhookEndpoint", { example: { is_active: false } });

export const LegacyWebhookBody = z
  .object({ url: Url.nullable().openapi({ description: "The webhook URL; null removes the legacy webhook" }) })
  .openapi("LegacyWebhook", { example: { url: "https://hooks.lender.example/esign" } });

export const WebhookEndpointSchema = z
  .object({
    endpoint_id: EndpointId,
    url: z.string(),
    description: z.string(),
    events: z.array(z.string()),
    is_active: z.boolean(),
    secret_set: z.boolean().openapi({ description: "false: deliveries are unsigned (migrated legacy webhook)" }),
    grace_expires_at: Timestamp.nullable().openapi({ description: "End of the 48 h dual-signing window after a rotation; null outside it" }),
    state: z.enum(["active", "failing", "paused", "disabled"]).openapi({
      description:
        "`failing`: 5 or more attempts failed in a row, the sweep sends it one delivery a round until one succeeds; `paused`: it failed every attempt for 3 days, nothing is sent (deliveries wait as pending, a `webhook.endpoint_paused` event was published) until an admin resumes it with PATCH `is_active: true` or a new `url`; `disabled`: `is_active` is false",
    }),
    consecutive_failures: z.number().int().openapi({ description: "Attempts failed in a row; 0 after any success" }),
    failing_since: Timestamp.nullable().openapi({ description: "First failure of the current run of failures; null while the endpoint answers" }),
    paused_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("WebhookEndpoint");

export const WebhookEndpointWithSecretSchema = WebhookEndpointSchema.extend({
  secret: z.string().openapi({ example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1pqD8lK4u7E=" }),
  secret_note: z.string(),
}).openapi("WebhookEndpointWithSecret");

export const LegacyWebhookSchema = z
  .object({
    url: z.string().nullable(),
    endpoint_id: EndpointId.nullable(),
    events: z.array(z.string()),
    is_active: z.boolean(),
    secret_set: z.boolean(),
  })
  .openapi("LegacyWebhookState");

export const DeliveryStatusEnum = z.enum(DELIVERY_STATUSES).openapi("WebhookDeliveryStatus");

export const WebhookDeliverySchema = z
  .object({
    delivery_id: DeliveryId,
    endpoint_id: EndpointId,
    event_id: z.string().openapi({ example: "evt_2m8x4k9q1c7v5b3n6p0r2t4w6y" }),
    event_type: z.string(),
    status: DeliveryStatusEnum,
    attempts: z.int().openapi({ description: "HTTP attempts made so far" }),
    response_code: z.int().nullable().openapi({ description: "HTTP status of the latest attempt" }),
    response_body: z.string().nullable().openapi({ description: "Body of the latest answer, first 2048 characters" }),
    duration_ms: z.int().nullable(),
    error: z.string().nullable().openapi({ description: "Why the latest attempt failed (timeout, redirect, network error, ...)" }),
    last_attempt_at: Timestamp.nullable(),
    next_retry_at: Timestamp.nullable(),
    redelivery_of: DeliveryId.nullable().openapi({ description: "The delivery this one replays" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("WebhookDelivery");

export const WebhookPayloadSchema = z
  .object({
    event_type: z.string(),
    event_id: z.string(),
    org_id: z.string(),
    envelope_id: z.string().nullable(),
    timestamp: Timestamp,
    data: z.record(z.string(), z.any()),
  })
  .openapi("WebhookPayload");

export const WebhookAttemptSchema = z
  .object({
    attempt: z.int(),
    attempted_at: Timestamp,
    succeeded: z.boolean(),
    response_code: z.int().nullable(),
    response_body: z.string().nullable(),
    error: z.string().nullable(),
    duration_ms: z.int(),
    next_retry_at: Timestamp.nullable(),
  })
  .openapi("WebhookAttempt");

export const WebhookDeliveryDetailSchema = WebhookDeliverySchema.extend({
  payload: WebhookPayloadSchema,
  attempt_log: z.array(WebhookAttemptSchema),
}).openapi("WebhookDeliveryDetail");

export const TestResultSchema = z
  .object({
    delivery_id: DeliveryId,
    event_id: z.string(),
    success: z.boolean().openapi({ description: "true when the endpoint answered 2xx" }),
    response_code: z.int().nullable(),
    duration_ms: z.int(),
    error: z.string().nullable(),
  })
  .openapi("WebhookTestResult");

export const EventCatalogEntrySchema = z
  .object({ event_type: z.string(), domain: z.string(), description: z.string() })
  .openapi("WebhookEventType", { example: { event_type: "envelope.completed", domain: "envelope", description: "Every signer has signed." } });

export const ListDeliveriesQuery = ListEnvelopesQuery.pick({ page: true, limit: true }).extend({ status: DeliveryStatusEnum.optional() });
