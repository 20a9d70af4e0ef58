import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call } from "../../helpers/api";
import { inOneWindow } from "../../helpers/rate-window";

const LIMIT = 300; // wrangler.toml [[ratelimits]] SIGNER_LIMITER: 300 a minute per client address
/**
 * The last requests of the minute go through the app; the ones before are spent directly on the limiter
 * under the same key (the address), as the app would: 300 real requests took more than a minute on a
 * loaded machine, so the minute ran out before the 301st and the test failed.
 */
const REAL = 50;

describe("flood limit on the signer API and the embed session", () => {
  it("answers 429 with Retry-After once one address passes 300 requests a minute; other addresses are unaffected", async () => {
    // the limiter counts in fixed one-minute windows: an attempt that straddles two is run again on fresh addresses
    await inOneWindow(async (n) => {
      const flooder = { "cf-connecting-ip": `198.51.100.${23 + 2 * n}` };
      const slug = "aaaaaaaaaaaaaaaaaaaaaaaaaa"; // well-formed, unknown: 404 while admitted
      for (let i = 0; i < LIMIT - REAL; i++) expect((await env.SIGNER_LIMITER.limit({ key: flooder["cf-connecting-ip"] })).success).toBe(true);
      const batch = await Promise.all(Array.from({ length: REAL }, () => call("GET", `/signing/${slug}`, { headers: flooder })));
      expect(batch.map((r) => r.status)).toEqual(Array(REAL).fill(404));
      const limited = await call("GET", `/signing/${slug}`, { headers: flooder });
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("60");
      expect(limited.headers.get("x-request-id")).toBeTruthy();
      expect(limited.body).toEqual({ error: "Too many requests from this address: wait a minute and try again", details: { retry_after: 60 }, code: "rate_limited" });
      // the same address is limited on the embed session too, before its token is even read
      expect((await call("POST", "/embed/session", { headers: { ...flooder, authorization: "Bearer x" }, body: { widget_type: "sign", envelope_id: "env_x" } })).status).toBe(429);
      // another signer's address is not
      expect((await call("GET", `/signing/${slug}`, { headers: { "cf-connecting-ip": `198.51.100.${24 + 2 * n}` } })).status).toBe(404);
    });
  }, 120_000); // run again if the attempt straddled two windows
});
