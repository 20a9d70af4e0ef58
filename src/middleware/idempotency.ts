import { createMiddleware } from "hono/factory";
import { sha256HexOfParts } from "../lib/crypto";
import { ApiError, badRequest, conflict, RETRYABLE_CONFLICT_CODES } from "../lib/errors";
import type { AppEnv } from "../lib/hono";
import { isMultipart, partsWithoutBoundary, uploadBody } from "../lib/multipart";
import { claimIdempotencyKey, completeIdempotencyKey, getIdempotencyRecord, releaseIdempotencyKey } from "../services/operator/api-keys/repository";
import { apiIssue } from "../lib/validation";
import { IDEMPOTENCY_WINDOW_MS } from "../services/idempotency/keyed-create";

/**
 * A claim still `in_progress` after this long belongs to a request that died (the isolate was evicted,
 * the client went away mid-upload): a retry takes it over instead of answering 409 for 24 h. Far above
 * the longest request the service runs (a 50 MB upload parsed and stored).
 */
export const STALE_CLAIM_MS = 5 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Answers that tell the client to retry are not the request's outcome and are never replayed: auth and
 * scope refusals (401, 403: a key granted the scope later must be able to retry), rate limits (429), a
 * body refused for its size (413), server errors (5xx), and conflicts that say so: by this project's
 * convention a 409 a retry can clear ("busy with concurrent changes", "changed while this request was
 * processed") ends its message with "retry", and a 409 for a state that clears by itself carries a
 * RETRYABLE_CONFLICT_CODES `code` (vault-in while the requested payment is unpaid: the same request
 * vaults once it settles). Other 4xx (400, 404, 409 for a state, 422) are final and replayed.
 */
export function isRetryAnswer(status: number, body: string): boolean {
  if (status >= 500 || status === 401 || status === 403 || status === 408 || status === 413 || status === 425 || status === 429) return true;
  if (status !== 409) return false;
  try {
    const { error, code } = JSON.parse(body) as { error?: unknown; code?: unknown };
    if (typeof code === "string" && RETRYABLE_CONFLICT_CODES.has(code)) return true;
    return typeof error === "string" && /\bretry\b/i.test(error);
  } catch {
    return false;
  }
}

/**
 * Stripe-style `Idempotency-Key` on partner POSTs. The first request with a key claims it (an INSERT
 * that only one concurrent request can win) and its response is stored; a retry with the same key and
 * the same body within 24 h gets that response again without running the handler, marked
 * `Idempotent-Replayed: true`. The same key with another body is 422; a retry while the first is still
 * running is 409, until the claim is STALE_CLAIM_MS old (its request died): then the retry takes it.
 * Answers that say "retry" (isRetryAnswer) release the key so the retry can run. docs/decisions/idempotency-keys.md
 * sets these rules beside Stripe's.
 */
export const idempotency = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header("idempotency-key");
  if (c.req.method !== "POST" || key === undefined) return next();
  if (!KEY_PATTERN.test(key)) {
    throw badRequest("Idempotency-Key must be 1 to 255 printable ASCII characters");
  }
  const db = c.var.ctx.global;
  const { keyId, orgId } = c.var.apiKey;
  // The body as bytes (an upload is binary, and text decoding would lose it); the request is rebuilt
  // around them so the route can still read its body. Same fingerprint as over the text for UTF-8.
  // An upload is read by the bounded reader its route shares (413 past the limit, one copy held) and
  // fingerprinted without its boundaries, which differ between a request and its retry.
  const upload = isMultipart(c.req.header("content-type"));
  const requestBody = upload ? await uploadBody(c.req.raw) : new Uint8Array(await c.req.raw.arrayBuffer());
  if (!upload) c.req.raw = new Request(c.req.raw, { body: requestBody });
  const parts = upload ? partsWithoutBoundary(requestBody, c.req.header("content-type")) : [requestBody];
  const fingerprint = await sha256HexOfParts([`${c.req.method} ${c.req.path}\n`, ...parts]);
  const now = Date.now();
  const cutoff = new Date(now - IDEMPOTENCY_WINDOW_MS).toISOString();
  const staleCutoff = new Date(now - STALE_CLAIM_MS).toISOString();
  const claimedAt = new Date(now).toISOString();

  const claim = { keyId, key, claimedAt };
  const claimed = await claimIdempotencyKey(db, { ...claim, orgId, requestHash: fingerprint, cutoff, staleCutoff });

  if (claimed.meta.changes === 0) {
    const prior = await getIdempotencyRecord(db, keyId, key);
    if (!prior) throw conflict("This Idempotency-Key is being reused concurrently; retry");
    if (prior.request_hash !== fingerprint) {
      throw new ApiError(
        422,
        "Idempotency-Key was already used with a different request; use a new key for a new request",
        [apiIssue(["Idempotency-Key"], "a key not used before with another request", key, "This key was used with another request", "idempotency_key_reused")],
        "idempotency_key_reused",
      );
    }
    if (prior.state !== "done" || prior.response_status === null) {
      throw conflict("A request with this Idempotency-Key is still being processed; retry shortly");
    }
    c.header("Idempotent-Replayed", "true");
    return c.body(prior.response_body ?? "", prior.response_status as 200, { "Content-Type": "application/json" });
  }

  // a create commits this beside its record: a retry after a 503 that hid a landed commit answers that record
  c.var.ctx.idempotencyRef = await sha256HexOfParts([`${keyId}\n${key}\n${fingerprint}`]);
  await next();

  // Both writes are guarded on this request's claim: a request that outlived STALE_CLAIM_MS and lost
  // its claim to a retry must not release or overwrite the retry's.
  const body = await c.res.clone().text();
  if (isRetryAnswer(c.res.status, body)) {
    await releaseIdempotencyKey(db, claim);
    return;
  }
  await completeIdempotencyKey(db, claim, { status: c.res.status, body });
});
