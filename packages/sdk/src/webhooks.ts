import { Webhook } from "standardwebhooks";

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a delivery the way Standard Webhooks defines it: `webhook-signature` (HMAC-SHA256 of
 * `webhook-id.webhook-timestamp.body` under the endpoint's `whsec_` secret, any of the listed
 * signatures, so a delivery inside a secret's rotation window verifies with either secret) and
 * `webhook-timestamp` within 5 minutes of now. `body` must be the raw text as received, not re-serialized
 * JSON. Returns the parsed event; throws when anything does not match.
 */
export function verifyWebhook<T = WebhookEvent>(secret: string, headers: WebhookHeaders, body: string): T {
  return new Webhook(secret).verify(body, plainHeaders(headers)) as T;
}

/** The body of every delivery: the same for each endpoint, retry and replay of an event. */
export type WebhookEvent = {
  event_type: string;
  event_id: string;
  org_id: string;
  envelope_id: string | null;
  /** when the event happened (ISO 8601) */
  timestamp: string;
  data: Record<string, unknown>;
};

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof (headers as Headers).forEach === "function" && typeof (headers as Headers).get === "function") {
    (headers as Headers).forEach((value, name) => (out[name.toLowerCase()] = value));
    return out;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}
