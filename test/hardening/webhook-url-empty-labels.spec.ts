import { describe, expect, it } from "vitest";
import { checkWebhookUrl } from "../../src/services/webhooks/url-policy";
import { call, newTenant } from "../helpers/api";
import { adminToken } from "../helpers/webhooks";

const EMPTY_LABELS = [
  "https://localhost../hook",
  "https://metadata.google.internal../computeMetadata/v1/",
  "https://hooks..lender.example/esign",
  "https://.hooks.lender.example/esign",
];

describe("webhook URLs whose host has an empty DNS label are refused", () => {
  it.each(EMPTY_LABELS)("%s is refused by the URL policy", (url) => {
    const verdict = checkWebhookUrl(url, "public-https");
    expect(verdict.ok).toBe(false);
    expect(checkWebhookUrl(url, "allow-loopback").ok).toBe(false);
  });

  it("an admin cannot register https://localhost../ as an endpoint", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    for (const url of EMPTY_LABELS.slice(0, 2)) {
      const res = await call("POST", "/webhooks/endpoints", { bearer: token, body: { url, events: ["*"] } });
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body)).toMatch(/empty label/);
    }
  });

  it("a name with one trailing dot (fully qualified) is still accepted", () => {
    expect(checkWebhookUrl("https://hooks.lender.example./esign", "public-https").ok).toBe(true);
  });
});
