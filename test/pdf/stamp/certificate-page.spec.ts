import { describe, expect, it } from "vitest";
import type { CertificateSigner } from "../../../src/pdf/stamp/types";
import { appendCertificatePage } from "../../../src/pdf/stamp/certificate-page";
import { makePdf, pageTexts, sha256Hex } from "../../helpers/pdf";

const signer = (i: number, extra: Partial<CertificateSigner> = {}): CertificateSigner => ({
  name: `Signer ${i}`,
  email: `signer${i}@example.com`,
  role: i === 1 ? "buyer" : `cosigner${i}`,
  routing_order: i,
  ip: `203.0.113.${i}`,
  user_agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86 ExtraLongToken_" + "x".repeat(60),
  viewed_at: "2026-03-01T12:00:00.000Z",
  signed_at: "2026-03-01T12:05:00.000Z",
  ...extra,
});

async function certificate(signers: CertificateSigner[]) {
  const original = await makePdf({ pages: 2 });
  const input = {
    envelopeId: "env_4d2k8m1q7c9v3b5n6p0r2t4w6y",
    envelopeName: "Retail installment contract",
    completedAt: "2026-03-01T12:05:00.000Z",
    originalSha256: await sha256Hex(original),
    stampedSha256: await sha256Hex("stamped"),
    signers,
  };
  const { bytes, pageCount } = await appendCertificatePage(original, input);
  const texts = (await pageTexts(bytes)).slice(2);
  return { input, pageCount, texts, all: texts.join("\n") };
}

describe("the signing-certificate page", () => {
  it("shows both SHA-256 hashes with all 64 hex digits", async () => {
    const { input, all } = await certificate([signer(1)]);
    expect(all).toContain(input.originalSha256);
    expect(all).toContain(input.stampedSha256);
    expect(input.originalSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("states each signer's identity verification, 'none' where there was none", async () => {
    const { all } = await certificate([signer(1, { identity_verification: "KBA passed (2026-03-01T12:01:00Z)" }), signer(2)]);
    expect(all).toContain("Identity verification: KBA passed (2026-03-01T12:01:00Z)");
    expect(all).toContain("Identity verification: none");
  });

  it("wraps a long user agent instead of cutting it off", async () => {
    const { all } = await certificate([signer(1)]);
    expect(all.replace(/\s+/g, "")).toContain(`ExtraLongToken_${"x".repeat(60)}`);
  });

  it("continues on further pages for many signers, listing every one of them", async () => {
    const signers = Array.from({ length: 40 }, (_, i) => signer(i + 1));
    const { pageCount, texts, all } = await certificate(signers);
    expect(pageCount).toBeGreaterThan(4);
    expect(texts.length).toBe(pageCount - 2);
    expect(texts[1]).toContain("Signing certificate (continued, page 2)");
    for (const s of signers) expect(all).toContain(`${s.name} <${s.email}>`);
    expect(all.match(/Identity verification: none/g)).toHaveLength(40);
  });
});
