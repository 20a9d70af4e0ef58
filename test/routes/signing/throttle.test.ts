import { describe, expect, it } from "vitest";
import { call } from "../../helpers/api";

const LIMIT = 300; // wrangler.toml [[ratelimits]] SIGNER_LIMITER: 300 a minute per client address

/** The limiter counts in fixed one-minute windows: start at the beginning of one, so a test never straddles two. */
async function freshWindow() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 25_000) await new Promise((r) => setTimeout(r, left + 100));
}

describe("flood limit on the signer API and the embed session", () => {
  it("answers 429 with Retry-After once one address passes 300 requests a minute; other addresses are unaffected", async () => {
    await freshWindow();
    const flooder = { "cf-connecting-ip": "198.51.100.23" };
    const slug = "aaaaaaaaaaaaaaaaaaaaaaaaaa"; // well-formed, unknown: 404 while admitted
    for (let i = 0; i < LIMIT; i += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => call("GET", `/signing/${slug}`, { headers: flooder })));
      expect(batch.map((r) => r.status)).toEqual(Array(50).fill(404));
    }
    const limited = await call("GET", `/signing/${slug}`, { headers: flooder });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(limited.headers.get("x-request-id")).toBeTruthy();
    expect(limited.body).toEqual({ error: "Too many requests from this address: wait a minute and try again", details: { retry_after: 60 }, code: "rate_limited" });
    // the same address is limited on the embed session too, before its token is even read
    expect((await call("POST", "/embed/session", { headers: { ...flooder, authorization: "Bearer x" }, body: { widget_type: "sign", envelope_id: "env_x" } })).status).toBe(429);
    // another signer's address is not
    expect((await call("GET", `/signing/${slug}`, { headers: { "cf-connecting-ip": "198.51.100.24" } })).status).toBe(404);
  }, 90_000); // up to 25 s waiting for a fresh window, then 300 requests on a loaded machine
});
