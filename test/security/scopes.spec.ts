import { describe, expect, it } from "vitest";
import { call } from "../helpers/api";

// Every operation's scope (403 naming it) and credential (401) cases are generated from the OpenAPI
// document by the security matrix (test/security/matrix.test.ts); this file keeps what the matrix does
// not say: the wording of the 401 for a missing, malformed or unknown key.
describe("scopes", () => {
  it("answers 401 stating the key is required when it is missing, malformed or unknown", async () => {
    for (const key of [undefined, "lk_short", `lk_${"0".repeat(40)}`, "Bearer something"]) {
      const res = await call("GET", "/partner/envelopes", { key });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/API key (required|is required)/);
      expect(res.headers.get("X-Request-Id")).toMatch(/^req_/);
    }
  });
});
