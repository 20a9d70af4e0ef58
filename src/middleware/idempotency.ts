import { createMiddleware } from "hono/factory";
import { sha256HexOfParts } from "../lib/crypto";
import { ApiError, badRequest, conflict } from "../lib/errors";
import type { AppEnv } from "../lib/hono";
import { isMultipart, partsWithoutBoundary, uploadBody } from "../lib/multipart";

const WINDOW_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Stripe-style `Idempotency-Key` on partner POSTs. The first request with a key claims it (an INSERT
 * that only one concurrent request can win) and its response is stored; a retry with the same key and
 * the same body within 24 h gets that response again without running the handler, marked
 * `Idempotent-Replayed: true`. The same key with another body is 422; a retry while the first is still
 * running is 409. Server errors (5xx) release the key so the retry can run.
 */
export const idempotency = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header("idempotency-key");
  if (c.req.method !== "POST" || key === undefined) return next();
  if (!KEY_PATTERN.test(key)) {
    throw badRequest("Idempotency-Key must be 1 to 255 printable ASCII characters");
  }
  const db = c.env.DB;
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
  const cutoff = new Date(now - WINDOW_MS).toISOString();

  const claimed = await db
    .prepare(
      `INSERT INTO idempotency_keys (key_id, idempotency_key, org_id, request_hash, state, created_at)
       VALUES (?, ?, ?, ?, 'in_progress', ?)
       ON CONFLICT (key_id, idempotency_key) DO UPDATE SET
         request_hash = excluded.request_hash, state = 'in_progress', response_status = NULL,
         response_body = NULL, created_at = excluded.created_at
       WHERE idempotency_keys.created_at < ?`,
    )
    .bind(keyId, key, orgId, fingerprint, new Date(now).toISOString(), cutoff)
    .run();

  if (claimed.meta.changes === 0) {
    const prior = await db
      .prepare(
        "SELECT request_hash, state, response_status, response_body FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?",
      )
      .bind(keyId, key)
      .first<{ request_hash: string; state: string; response_status: number | null; response_body: string | null }>();
    if (!prior) throw conflict("This Idempotency-Key is being reused concurrently; retry");
    if (prior.request_hash !== fingerprint) {
      throw new ApiError(422, "Idempotency-Key was already used with a different request; use a new key for a new request", {
        idempotency_key: key,
      });
    }
    if (prior.state !== "done" || prior.response_status === null) {
      throw conflict("A request with this Idempotency-Key is still being processed; retry shortly");
    }
    c.header("Idempotent-Replayed", "true");
    return c.body(prior.response_body ?? "", prior.response_status as 200, { "Content-Type": "application/json" });
  }

  await next();

  if (c.res.status >= 500) {
    await db.prepare("DELETE FROM idempotency_keys WHERE key_id = ? AND idempotency_key = ?").bind(keyId, key).run();
    return;
  }
  const body = await c.res.clone().text();
  await db
    .prepare(
      "UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ? WHERE key_id = ? AND idempotency_key = ?",
    )
    .bind(c.res.status, body, keyId, key)
    .run();
});
