import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { redactPath } from "../../src/lib/redact";
import { inOneWindow } from "../helpers/rate-window";

const LIMIT = 300; // wrangler.toml [[ratelimits]] SIGNER_LIMITER: 300 a minute per client address

/**
 * The limiter counts in fixed one-minute windows: a test whose attempt straddles two is run again, on
 * fresh addresses (198.51.100.<base + 10 n>; every base below is under 80, so attempts never share one).
 */
const address = (base: number, n: number) => `198.51.100.${base + 10 * n}`;

/** Spends all but one of the address's requests for this minute directly on the limiter (300 real requests would take minutes here). */
async function almostFlooded(key: string) {
  for (let i = 0; i < LIMIT - 1; i++) expect((await env.SIGNER_LIMITER.limit({ key })).success).toBe(true);
}

const randomApiKey = () => `lk_${Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => b.toString(16).padStart(2, "0")).join("")}`;
const statusOf = async (res: Promise<Response>) => {
  const r = await res;
  await r.arrayBuffer();
  return r.status;
};

async function expect429(res: Response) {
  expect(res.status).toBe(429);
  expect(res.headers.get("retry-after")).toBe("60");
  expect(await res.json()).toMatchObject({ error: "Too many requests from this address: wait a minute and try again" });
}

const download = (ip: string) =>
  SELF.fetch("http://localhost/storage/v/vlt_unknown0000000000000000/authoritative?exp=1795400000&sig=00", { headers: { "cf-connecting-ip": ip } });
const page = (ip: string, path = "/sign/s/bbbbbbbbbbbbbbbbbbbbbbbbbb") => SELF.fetch(`http://localhost${path}`, { headers: { "cf-connecting-ip": ip } });
const withKey = (ip: string, key = randomApiKey()) => SELF.fetch("http://localhost/api/v2/partner/envelopes", { headers: { "cf-connecting-ip": ip, "X-API-Key": key } });

describe("the per-address flood limit covers vault download URLs, the signing pages and unknown API keys", () => {
  it("a vault download URL hammered from one address is answered 429 once the address passes 300 requests a minute", async () => {
    await inOneWindow(async (n) => {
      const ip = address(71, n);
      await almostFlooded(ip);
      expect(await statusOf(download(ip))).toBe(403); // the 300th: admitted, and refused for its bad signature
      await expect429(await download(ip));
      expect(await statusOf(download(address(72, n)))).toBe(403);
    });
  });

  it("the signing and widget pages are flood-limited per address", async () => {
    await inOneWindow(async (n) => {
      const ip = address(73, n);
      await almostFlooded(ip);
      expect(await statusOf(page(ip))).toBe(200);
      await expect429(await page(ip));
      await expect429(await page(ip, "/embed/s/bbbbbbbbbbbbbbbbbbbbbbbbbb"));
      await expect429(await page(ip, "/embed/sign/env_bbbbbbbbbbbbbbbb"));
      expect(await statusOf(page(address(74, n)))).toBe(200);
    });
  });

  it("an address sending hundreds of random well-formed API keys is answered 429 before they are looked up; other addresses get 401", async () => {
    await inOneWindow(async (n) => {
      const ip = address(75, n);
      await almostFlooded(`unknown-api-key:${ip}`);
      expect(await statusOf(withKey(ip))).toBe(401);
      await expect429(await withKey(ip));
      await expect429(await withKey(ip));
      expect(await statusOf(withKey(address(76, n)))).toBe(401);
    });
  });

  it("a partner's own valid key is limited per key, not by the address's count of unknown keys", async () => {
    await inOneWindow(async (n) => {
      const ip = address(77, n);
      // the address is past the per-address limit of the signer API and pages
      for (let i = 0; i <= LIMIT; i++) await env.SIGNER_LIMITER.limit({ key: ip });
      expect(await statusOf(page(ip))).toBe(429);
      const org = await SELF.fetch("http://localhost/api/v2/operator/orgs", {
        method: "POST",
        headers: { Authorization: "Bearer test-operator-token", "Content-Type": "application/json" },
        body: JSON.stringify({ name: "Busy partner" }),
      });
      const orgId = ((await org.json()) as { data: { org_id: string } }).data.org_id;
      const key = await SELF.fetch(`http://localhost/api/v2/operator/orgs/${orgId}/api-keys`, {
        method: "POST",
        headers: { Authorization: "Bearer test-operator-token", "Content-Type": "application/json" },
        body: JSON.stringify({ scopes: ["envelopes:read"], rate_limit_rpm: 1000 }),
      });
      const raw = ((await key.json()) as { data: { api_key: string } }).data.api_key;
      expect(await statusOf(withKey(ip, raw))).toBe(200);
    });
  });
});

describe("signer slugs in logged paths", () => {
  it("are replaced, keeping the path's shape", () => {
    expect(redactPath("/api/v2/signing/Xk3_9aZbQwErTyUiOpAsDf/submit")).toBe("/api/v2/signing/[slug]/submit");
    expect(redactPath("/sign/s/Xk3_9aZbQwErTyUiOpAsDf")).toBe("/sign/s/[slug]");
    expect(redactPath("/embed/s/Xk3_9aZbQwErTyUiOpAsDf")).toBe("/embed/s/[slug]");
    expect(redactPath("/api/v2/partner/envelopes/env_123")).toBe("/api/v2/partner/envelopes/env_123");
  });
});
