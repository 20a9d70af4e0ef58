import { env } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deliverWebhook } from "../../../src/services/webhooks/deliver";
import { fanOutEvent } from "../../../src/services/webhooks/fan-out";
import { checkWebhookUrl, deliveryUrlPolicyOf, urlPolicyOf } from "../../../src/services/webhooks/url-policy";
import { call, newTenant } from "../../helpers/api";
import { adminToken, attemptsOf, createEndpoint, insertEvent, received, receiverUrl, tenantWithEndpoint } from "../../helpers/webhooks";
import { jobContextOf } from "../../helpers/context";

const strict = (url: string) => checkWebhookUrl(url, "public-https");
const loopback = (url: string) => checkWebhookUrl(url, "allow-loopback");

/** Every form the spec and docs/decisions/README.md name, refused under the production policy and in tests alike. */
const REFUSED: [string, RegExp][] = [
  // not https, not 443, credentials, not a URL
  ["http://hooks.lender.example/esign", /only https/],
  ["ftp://hooks.lender.example/esign", /only https/],
  ["https://hooks.lender.example:8443/esign", /port 443/],
  ["https://user:pass@hooks.lender.example/esign", /credentials/],
  ["https://hooks.lender.example@evil.example/", /credentials/],
  ["//hooks.lender.example/esign", /not a valid/],
  ["hooks.lender.example/esign", /not a valid/],
  ["https://hooks.lender.example\\@127.0.0.1/", /backslashes/],
  ["https://hooks.lender.example/\u0000", /control/],
  // loopback, private, link-local, CGNAT, reserved IPv4
  ["https://127.0.0.1/", /loopback/],
  ["https://127.255.255.254/", /loopback/],
  ["https://10.1.2.3/", /private/],
  ["https://172.16.0.1/", /private/],
  ["https://172.31.255.255/", /private/],
  ["https://192.168.1.10/", /private/],
  ["https://169.254.1.1/", /link-local/],
  ["https://100.64.0.1/", /carrier-grade NAT/],
  ["https://100.127.255.254/", /carrier-grade NAT/],
  ["https://0.0.0.0/", /this-network/],
  ["https://224.0.0.1/", /multicast/],
  ["https://255.255.255.255/", /reserved/],
  ["https://192.0.2.1/", /documentation/],
  // numeric host encodings of 127.0.0.1 (the URL parser turns them all into 127.0.0.1)
  ["https://2130706433/", /numeric host encodings/],
  ["https://0x7f000001/", /numeric host encodings/],
  ["https://0x7F.0.0.1/", /numeric host encodings/],
  ["https://0177.0.0.1/", /numeric host encodings/],
  ["https://017700000001/", /numeric host encodings/],
  ["https://127.1/", /numeric host encodings/],
  ["https://127.0.1/", /numeric host encodings/],
  ["https://%31%32%37.0.0.1/", /numeric host encodings/],
  ["https://0x08.0x08.0x08.0x08/", /numeric host encodings/], // even a public address must be written plainly
  // IPv6: loopback, unspecified, ULA, link-local, IPv4-mapped and -embedding forms
  ["https://[::1]/", /loopback/],
  ["https://[0:0:0:0:0:0:0:1]/", /loopback/],
  ["https://[::]/", /unspecified/],
  ["https://[fd00::1]/", /unique local/],
  ["https://[fc00::1]/", /unique local/],
  ["https://[fe80::1]/", /link-local/],
  ["https://[febf::1]/", /link-local/],
  ["https://[::ffff:127.0.0.1]/", /IPv4-mapped/],
  ["https://[::ffff:7f00:1]/", /IPv4-mapped/],
  ["https://[::ffff:169.254.169.254]/", /IPv4-mapped/],
  ["https://[::ffff:8.8.8.8]/", /IPv4-mapped/],
  ["https://[::127.0.0.1]/", /IPv4-compatible/],
  ["https://[64:ff9b::a9fe:a9fe]/", /NAT64/],
  ["https://[2002:7f00:1::]/", /6to4/],
  ["https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", /Teredo/],
  ["https://[2001:db8::1]/", /documentation/],
  ["https://[ff02::1]/", /multicast/],
  // names: localhost, private suffixes, single labels, metadata services
  ["https://localhost/", /single-label/],
  ["https://LOCALHOST./", /single-label/],
  ["https://api.localhost/", /\.localhost/],
  ["https://printer.local/", /\.local/],
  ["https://db.internal/", /\.internal/],
  ["https://nas.lan/", /\.lan/],
  ["https://router.home.arpa/", /\.home\.arpa/],
  ["https://intranet/", /single-label/],
  ["https://metadata/", /single-label/],
  ["https://metadata.google.internal/computeMetadata/v1/", /metadata/],
  ["https://metadata.goog/", /metadata/],
  ["https://instance-data.ec2.internal/", /metadata/],
  ["https://169.254.169.254/latest/meta-data/", /link-local/],
  ["https://100.100.100.200/latest/meta-data/", /carrier-grade NAT/], // Alibaba Cloud metadata
  ["https://192.0.0.192/", /IETF/], // Oracle Cloud metadata
  ["https://[fd00:ec2::254]/latest/meta-data/", /unique local/], // AWS IMDS over IPv6
  ["https://ｌｏｃａｌｈｏｓｔ/", /single-label/], // full-width letters normalize to localhost
];

describe("webhook URL rules", () => {
  it.each(REFUSED)("refuses %s", (url, reason) => {
    const verdict = strict(url);
    expect(verdict.ok, url).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(reason);
    expect(loopback(url).ok, `${url} under allow-loopback`).toBe(false);
  });

  it("accepts public HTTPS names and canonical public addresses on port 443", () => {
    for (const url of [
      "https://hooks.lender.example/esign",
      "https://hooks.lender.example:443/esign?tenant=42#x",
      "https://HOOKS.Lender.Example/esign",
      "https://hooks.lender.example./esign",
      "https://8.8.8.8/hook",
      "https://[2606:4700:4700::1111]/hook",
      "https://xn--bcher-kva.example/hook",
      "https://localhost.example.com/hook",
    ]) {
      expect(strict(url), url).toMatchObject({ ok: true });
    }
    expect(strict(`https://hooks.lender.example/${"a".repeat(2100)}`).ok).toBe(false);
  });

  it("never throws, and admits only https on 443 without credentials and no non-public IPv4 (property)", () => {
    const nonPublic = (ip: string) => {
      const [a, b] = ip.split(".").map(Number) as [number, number];
      return a === 0 || a === 10 || a === 127 || a >= 224 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b < 128);
    };
    const inputs = fc.oneof(
      fc.string(),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.ipV4().map((ip) => `https://${ip}/hook`),
      fc.ipV6().map((ip) => `https://[${ip}]/hook`),
      fc.tuple(fc.constantFrom("http", "https", "HTTPS", "ftp"), fc.string(), fc.string()).map(([scheme, host, path]) => `${scheme}://${host}/${path}`),
    );
    fc.assert(
      fc.property(inputs, (raw) => {
        const verdict = strict(raw);
        if (!verdict.ok) return;
        expect(verdict.url.protocol).toBe("https:");
        expect(verdict.url.port).toBe("");
        expect(verdict.url.username + verdict.url.password).toBe("");
        if (/^\d+\.\d+\.\d+\.\d+$/.test(verdict.url.hostname)) expect(nonPublic(verdict.url.hostname), raw).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it("allows exactly http://127.0.0.1:<port> and http://localhost:<port> under allow-loopback, never in production", () => {
    for (const url of ["http://127.0.0.1:8787/hook", "http://localhost:3000/hook"]) {
      expect(loopback(url), url).toMatchObject({ ok: true });
      expect(strict(url).ok, url).toBe(false);
    }
    for (const url of ["http://127.0.0.1/hook", "http://127.1:8787/", "http://2130706433:8787/", "http://[::1]:8787/", "http://127.0.0.2:8787/", "http://0x7f000001:8787/", "http://localhost.:8787/", "http://user@127.0.0.1:8787/"]) {
      expect(loopback(url).ok, url).toBe(false);
    }
  });

  it("unset, WEBHOOK_URL_POLICY allows loopback in development and is strict in production; an explicit value wins", () => {
    for (const WEBHOOK_URL_POLICY of [undefined, ""] as const) {
      const dev = { SERVICE_ENV: "development", WEBHOOK_URL_POLICY: WEBHOOK_URL_POLICY as undefined };
      expect(urlPolicyOf(dev)).toBe("allow-loopback");
      expect(deliveryUrlPolicyOf(dev)).toBe("allow-loopback");
      for (const SERVICE_ENV of [undefined, "production", "Development", ""]) {
        const prod = { SERVICE_ENV, WEBHOOK_URL_POLICY: WEBHOOK_URL_POLICY as undefined };
        expect(urlPolicyOf(prod), String(SERVICE_ENV)).toBe("public-https");
        expect(deliveryUrlPolicyOf(prod), String(SERVICE_ENV)).toBe("public-https");
      }
    }
    // an explicit strict policy stays strict in development
    expect(urlPolicyOf({ SERVICE_ENV: "development", WEBHOOK_URL_POLICY: "public-https" })).toBe("public-https");
    expect(deliveryUrlPolicyOf({ SERVICE_ENV: "development", WEBHOOK_URL_POLICY: "public-https" })).toBe("public-https");
    // the explicit opt-in in production is still refused (503 naming the variable) and never delivers
    expect(() => urlPolicyOf({ SERVICE_ENV: undefined, WEBHOOK_URL_POLICY: "allow-loopback" })).toThrow(/WEBHOOK_URL_POLICY/);
    expect(deliveryUrlPolicyOf({ SERVICE_ENV: undefined, WEBHOOK_URL_POLICY: "allow-loopback" })).toBe("public-https");
  });

  it("checks the URL at create and at update through the API (422 on url)", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    for (const url of ["https://169.254.169.254/latest", "http://2130706433/", "https://0177.0.0.1/", "https://[::ffff:127.0.0.1]/", "https://db.internal/"]) {
      const res = await call("POST", "/webhooks/endpoints", { bearer: token, body: { url, events: ["*"] } });
      expect(res.status, url).toBe(422);
      expect(res.body.details[0]).toMatchObject({ path: ["url"], code: "invalid_url" });
    }
    const ep = await createEndpoint(token, { url: receiverUrl("ok").url });
    const res = await call("PATCH", `/webhooks/endpoints/${ep.endpoint_id}`, { bearer: token, body: { url: "https://metadata.google.internal/" } });
    expect(res.status).toBe(422);
  });

  it("re-checks the URL before every attempt: a URL the policy no longer allows is never contacted", async () => {
    const { t, token, target, ep } = await tenantWithEndpoint("ok");
    const eventId = await insertEvent(t.orgId);
    const [deliveryId] = await fanOutEvent(jobContextOf(eventId), { eventId });
    // The same stored URL, now under the production policy.
    const result = await deliverWebhook(jobContextOf(deliveryId!, { ...env, WEBHOOK_URL_POLICY: "public-https" }), { deliveryId: deliveryId! });
    expect(result).toMatchObject({ succeeded: false, status: "pending", responseStatus: null });
    expect(result!.error).toMatch(/URL not allowed: only https/);
    expect(await received(target.path)).toEqual([]);
    // A URL changed behind the API's back is caught the same way.
    await env.DB.prepare("UPDATE webhook_endpoints SET url = 'https://169.254.169.254/latest/meta-data/' WHERE id = ?").bind(ep.endpoint_id).run();
    const again = await deliverWebhook(jobContextOf(deliveryId!), { deliveryId: deliveryId!, now: new Date(Date.now() + 2 * 3600_000) });
    expect(again!.error).toMatch(/URL not allowed: link-local/);
    const attempts = await attemptsOf(deliveryId!);
    expect(attempts.map((a) => a.response_status)).toEqual([null, null]);
  });
});
