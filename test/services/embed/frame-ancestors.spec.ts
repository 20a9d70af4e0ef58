import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { frameAncestorsCsp, frameAncestorsFor, normalizeOrigin } from "../../../src/services/embed/frame-ancestors";
import { jobContext } from "../../helpers/context";

describe("frame ancestors", () => {
  it("normalizes an origin: lowercase, punycode, no trailing slash, no default port", () => {
    const cases: [string, string][] = [
      ["HTTPS://Dealer.Example.COM/", "https://dealer.example.com"],
      ["https://dealer.example.com:443", "https://dealer.example.com"],
      ["https://dealer.example.com:8443", "https://dealer.example.com:8443"],
      ["https://*.Partner.Example", "https://*.partner.example"],
      ["https://bücher.example", "https://xn--bcher-kva.example"],
      ["http://LOCALHOST:5173", "http://localhost:5173"],
      ["http://127.0.0.1:80", "http://127.0.0.1"],
      [" https://203.0.113.9 ", "https://203.0.113.9"],
    ];
    for (const [input, origin] of cases) expect(normalizeOrigin(input), input).toEqual({ ok: true, origin });
  });

  it("builds the CSP directive, leaving out anything that is not a stored origin", () => {
    expect(frameAncestorsCsp([])).toBe("frame-ancestors 'self'");
    expect(frameAncestorsCsp(["https://partner.example"])).toBe("frame-ancestors 'self' https://partner.example");
    expect(frameAncestorsCsp(["https://a.example", "https://b.example; script-src *", "*", "https://c.example:8443"])).toBe(
      "frame-ancestors 'self' https://a.example https://c.example:8443",
    );
  });

  it("answers [] for an unknown envelope or signer", async () => {
    expect(await frameAncestorsFor(jobContext(), { envelopeId: "env_unknown" })).toEqual([]);
    expect(await frameAncestorsFor(jobContext(), { signerId: "signer_unknown" })).toEqual([]);
  });
});
