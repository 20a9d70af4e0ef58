import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { isRetryAnswer, STALE_CLAIM_MS } from "../../src/middleware/idempotency";
import { call, envelopeBody, newKey, newTenant, operator } from "../helpers/api";

describe("Idempotency-Key: answers that say 'retry' are not replayed, and a dead request's claim expires", () => {
  it("a key refused for a missing scope can retry with the same Idempotency-Key once the operator grants the scope", async () => {
    const t = await newTenant();
    const reader = await newKey(t.orgId, ["envelopes:read"]);
    const body = envelopeBody();
    const headers = { "Idempotency-Key": "scope-later" };
    const refused = await call("POST", "/partner/envelopes", { key: reader.key, body, headers });
    expect(refused.status).toBe(403);

    expect((await operator("PATCH", `/api-keys/${reader.keyId}`, { scopes: ["envelopes:read", "envelopes:write"] })).status).toBe(200);
    const retried = await call("POST", "/partner/envelopes", { key: reader.key, body, headers });
    expect(retried.status).toBe(201);
    expect(retried.headers.get("Idempotent-Replayed")).toBeNull();
    const replay = await call("POST", "/partner/envelopes", { key: reader.key, body, headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.body).toEqual(retried.body);
  });

  it("a request whose first attempt died mid-flight can be retried after the stale-claim bound, not only after 24 hours", async () => {
    const t = await newTenant();
    const body = envelopeBody();
    const headers = { "Idempotency-Key": "died" };
    // The first attempt claimed the key, then its isolate died: the claim stays in_progress.
    const first = await call("POST", "/partner/envelopes", { key: t.key, body, headers });
    expect(first.status).toBe(201);
    await env.DB.prepare("UPDATE idempotency_keys SET state = 'in_progress', response_status = NULL, response_body = NULL WHERE key_id = ? AND idempotency_key = 'died'")
      .bind(t.keyId)
      .run();

    // While the claim is fresh, a retry is told to wait.
    expect((await call("POST", "/partner/envelopes", { key: t.key, body, headers })).status).toBe(409);

    const stale = new Date(Date.now() - STALE_CLAIM_MS - 1000).toISOString();
    await env.DB.prepare("UPDATE idempotency_keys SET created_at = ? WHERE key_id = ? AND idempotency_key = 'died'").bind(stale, t.keyId).run();
    const retried = await call("POST", "/partner/envelopes", { key: t.key, body, headers });
    expect(retried.status).toBe(201);
    const replay = await call("POST", "/partner/envelopes", { key: t.key, body, headers });
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.body).toEqual(retried.body);
    expect(STALE_CLAIM_MS).toBeLessThanOrEqual(15 * 60 * 1000);
  });

  it("busy and changed-meanwhile conflicts, rate limits and auth refusals are retry answers; a final answer is kept", () => {
    const error = (message: string) => JSON.stringify({ error: message });
    expect(isRetryAnswer(409, error("The organization is busy with concurrent changes; retry"))).toBe(true);
    expect(isRetryAnswer(409, error("The envelope changed while this request was processed; retry"))).toBe(true);
    expect(isRetryAnswer(429, error("Rate limit exceeded"))).toBe(true);
    expect(isRetryAnswer(403, error("Missing required scope: envelopes:write"))).toBe(true);
    expect(isRetryAnswer(503, error("Service not configured"))).toBe(true);
    expect(isRetryAnswer(409, error("This envelope is already vaulted with a different document; the authoritative copy cannot be replaced"))).toBe(false);
    expect(isRetryAnswer(422, error("Validation failed"))).toBe(false);
    expect(isRetryAnswer(201, JSON.stringify({ data: {} }))).toBe(false);
  });
});
