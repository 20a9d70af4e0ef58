export { EsignVault, type EsignVaultOptions, type ListItem } from "./client.js";
export { EsignVaultError } from "./errors.js";
export { retryingFetch, retryDelayMs, RETRYABLE_STATUSES, type RetryOptions } from "./retry.js";
export { verifyWebhook, type WebhookEvent, type WebhookHeaders } from "./webhooks.js";
export { controlSignature, controlKeySignature, bodySha256, publicJwk, jwkKid, type ControlAction, type SigningKey } from "./control-signature.js";
export type { paths, components, operations } from "./schema.js";
