import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { redactPath } from "../../src/lib/redact";

const LIMIT = 300; // wrangler.toml [[ratelimits]] SIGNER_LIMITER: 300 a minute per client address

/** The limiter counts in fixed one-minute windows: start at the beginning of one, so a test never straddles two. */
async function freshWindow() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 30_000) await new Promise((r) => setTimeout(r, left + 100));
}

const randomApiKey = () => `lk_${Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => b.toString(16).padStart(2, "0")).join("")}`;

/** Sends LIMIT requests from `ip` (50 at a time), checks each was admitted, then one more: its answer. */
async function flood(ip: string, request: (headers: Record<string, string>) => Promise<Response>, admitted: (status: number) => boolean) {
  for (let i = 0; i < LIMIT; i += 50) {
    const batch = await Promise.all(Array.from({ length: 50 }, () => request({ "cf-connecting-ip": ip }).then(async (r) => (await r.arrayBuffer(), r.status))));
    expect(batch.filter((s) => !admitted(s))).toEqual([]);
  }
  return request({ "cf-connecting-ip": ip });
}

async function expect429(res: Response) {
  expect(res.status).toBe(429);
  expect(res.headers.get("retry-after")).toBe("60");
  expect(await res.json()).toMatchObject({ error: "Too many requests from this address: wait a minute and try again" });
}

describe("the per-address flood limit covers vault download URLs, the signing pages and unknown API keys", () => {
  it(
    "one address past 300 requests a minute is answered 429 on each; another address is not",
    async () => {
      await freshWindow();
      const slug = "bbbbbbbbbbbbbbbbbbbbbbbbbb";
      const download = (headers: Record<string, string>) =>
        SELF.fetch("http://localhost/storage/v/vlt_unknown0000000000000000/document.pdf?exp=1795400000&sig=00", { headers });
      const page = (headers: Record<string, string>) => SELF.fetch(`http://localhost/sign/s/${slug}`, { headers });
      const apiKey = (headers: Record<string, string>) => SELF.fetch("http://localhost/api/v2/partner/envelopes", { headers: { ...headers, "X-API-Key": randomApiKey() } });

      const [d, p, k] = await Promise.all([
        flood("198.51.100.61", download, (s) => s !== 429 && s < 500),
        flood("198.51.100.62", page, (s) => s === 200),
        flood("198.51.100.63", apiKey, (s) => s === 401),
      ]);
      await expect429(d);
      await expect429(p);
      await expect429(k);
      // the block on unknown keys holds for a real key from that address too until the window ends, but not for other addresses
      expect((await apiKey({ "cf-connecting-ip": "198.51.100.64" })).status).toBe(401);
      expect((await page({ "cf-connecting-ip": "198.51.100.64" })).status).toBe(200);
    },
    120_000,
  );
});

describe("signer slugs in logged paths", () => {
  it("are replaced, keeping the path's shape", () => {
    expect(redactPath("/api/v2/signing/Xk3_9aZbQwErTyUiOpAsDf/submit")).toBe("/api/v2/signing/[slug]/submit");
    expect(redactPath("/sign/s/Xk3_9aZbQwErTyUiOpAsDf")).toBe("/sign/s/[slug]");
    expect(redactPath("/embed/s/Xk3_9aZbQwErTyUiOpAsDf")).toBe("/embed/s/[slug]");
    expect(redactPath("/api/v2/partner/envelopes/env_123")).toBe("/api/v2/partner/envelopes/env_123");
  });
});
