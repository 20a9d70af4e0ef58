import { rateLimiterFor } from "../../../../durable-objects/rate-limiter";
import type { RequestContext } from "../../../lib/context";
import type { ApiKey } from "../schema";
import { loadKey, serializeKey } from "./repository";

/** Flushes the limiter's pending `last_used_at` first, so the operator sees the key's latest use. */
export async function getApiKey(ctx: RequestContext, input: { keyId: string }): Promise<ApiKey> {
  const key = await loadKey(ctx.global, input.keyId);
  await rateLimiterFor(ctx.env, key.key_hash).flush();
  return serializeKey(await loadKey(ctx.global, input.keyId));
}
