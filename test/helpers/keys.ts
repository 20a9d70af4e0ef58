import { env } from "cloudflare:test";
import { sha256Hex } from "../../src/lib/crypto";

export async function limiterStub(rawKey: string) {
  const hash = await sha256Hex(rawKey);
  return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(hash));
}
