import { env } from "cloudflare:test";

export async function sha256Hex(s: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s));
  return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function limiterStub(rawKey: string) {
  const hash = await sha256Hex(rawKey);
  return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(hash));
}
