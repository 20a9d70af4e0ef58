import { hmacSha256, toHex } from "../../lib/crypto";

/**
 * Both signature schemes of a delivery (spec 5.4, docs/webhooks.md):
 * - `X-Service-Signature: sha256=<hex>`: HMAC-SHA256 of the raw body keyed by the UTF-8 bytes of the
 *   whole secret string (GitHub's scheme; `@octokit/webhooks-methods` verifies it);
 * - Standard Webhooks `webhook-signature: v1,<base64>`: HMAC-SHA256 of `id.timestamp.body` keyed by
 *   the base64-decoded bytes after `whsec_` (`standardwebhooks`, `svix` verify it, replay-safe).
 */
export const SECRET_PREFIX = "whsec_";

export function newWebhookSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(32)));
}

export async function serviceSignature(secret: string, body: string): Promise<string> {
  return `sha256=${toHex(await hmacSha256(secret, body))}`;
}

export async function standardSignature(secret: string, webhookId: string, timestamp: number, body: string): Promise<string> {
  const key = fromBase64(secret.slice(SECRET_PREFIX.length));
  return `v1,${toBase64(await hmacSha256(key, `${webhookId}.${timestamp}.${body}`))}`;
}

/**
 * The signature headers for one attempt. `previousSecret` is passed only inside the rotation window;
 * then each scheme carries a second signature made with it. No secret: unsigned (legacy endpoints).
 */
export async function signatureHeaders(input: {
  secret: string | null;
  previousSecret: string | null;
  webhookId: string;
  timestamp: number;
  body: string;
}): Promise<Record<string, string>> {
  if (!input.secret) return {};
  const secrets = input.previousSecret ? [input.secret, input.previousSecret] : [input.secret];
  const standard = await Promise.all(secrets.map((s) => standardSignature(s, input.webhookId, input.timestamp, input.body)));
  const headers: Record<string, string> = {
    "X-Service-Signature": await serviceSignature(input.secret, input.body),
    "webhook-signature": standard.join(" "),
  };
  if (input.previousSecret) headers["X-Service-Signature-Previous"] = await serviceSignature(input.previousSecret, input.body);
  return headers;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
