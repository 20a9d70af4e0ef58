export { EsignVault, type EsignVaultOptions, type ListItem } from "./client";
export { EsignVaultError } from "./errors";
export { retryingFetch, retryDelayMs, RETRYABLE_STATUSES, type RetryOptions } from "./retry";
export { verifyWebhook, type WebhookEvent, type WebhookHeaders } from "./webhooks";
export { controlSignature, controlKeySignature, bodySha256, publicJwk, jwkKid, type ControlAction, type SigningKey } from "./control-signature";
export type { paths, components, operations } from "./schema";
