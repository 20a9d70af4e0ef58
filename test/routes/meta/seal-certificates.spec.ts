import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { call, callWith } from "../../helpers/api";
import { sha256Hex } from "../../helpers/pdf";

const der = (pem: string) => Uint8Array.from(atob(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END/.exec(pem.replace(/\\n/g, "\n"))![1]!.replace(/\s+/g, "")), (c) => c.charCodeAt(0));

const list = (bindings: Env) => callWith(bindings, "GET", "/seal-certificates");

describe("GET /api/v2/seal-certificates (public)", () => {
  it("publishes the configured seal certificate with the SHA-256 an auditor pins, to anyone, cacheably", async () => {
    const res = await call("GET", "/seal-certificates");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.body.data).toHaveLength(1);
    const [current] = res.body.data;
    expect(current).toMatchObject({ current: true, subject: "CN=esign-vault test seal", issuer: "CN=esign-vault test seal" });
    expect(current.sha256).toBe(await sha256Hex(der(env.SEAL_CERTIFICATE!)));
    expect(new Date(current.not_before).getTime()).toBeLessThan(Date.now());
    expect(new Date(current.not_after).getTime()).toBeGreaterThan(Date.now());
    // the PEM given is the certificate itself: its SHA-256 is the published fingerprint
    expect(await sha256Hex(der(current.certificate_pem))).toBe(current.sha256);
  });

  it("lists retired seal certificates after the current one, and only the retired ones when no seal is configured", async () => {
    const retiredPem = env.TEST_LT_SEAL_CERTIFICATE!; // a CA-issued seal and its root: both published as retired
    const both = await list({ ...env, SEAL_RETIRED_CERTIFICATES: retiredPem });
    expect(both.status).toBe(200);
    expect(both.body.data.map((c: { current: boolean }) => c.current)).toEqual([true, false, false]);
    expect(both.body.data[1].sha256).toBe(await sha256Hex(der(retiredPem)));
    expect(both.body.data[1].issuer).not.toBe(both.body.data[1].subject);

    const none = await list({ ...env, SEAL_CERTIFICATE: undefined, SEAL_PRIVATE_KEY: undefined });
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
    const retiredOnly = await list({ ...env, SEAL_CERTIFICATE: undefined, SEAL_RETIRED_CERTIFICATES: retiredPem });
    expect(retiredOnly.body.data.every((c: { current: boolean }) => !c.current)).toBe(true);
  });

  it("answers 503 naming the variable whose certificate is unreadable", async () => {
    const bad = await list({ ...env, SEAL_CERTIFICATE: "not a certificate" });
    expect(bad.status).toBe(503);
    expect(bad.body.error).toContain("SEAL_CERTIFICATE");
    const garbled = await list({ ...env, SEAL_RETIRED_CERTIFICATES: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----" });
    expect(garbled.status).toBe(503);
    expect(garbled.body.error).toContain("SEAL_RETIRED_CERTIFICATES");
  });
});
