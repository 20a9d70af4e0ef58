import { describe, expect, it } from "vitest";
import { call, createEnvelope, newTenant } from "./helpers/api";

describe("smoke", () => {
  it("creates and reads an envelope", async () => {
    const t = await newTenant();
    const env = await createEnvelope(t.key);
    const got = await call("GET", `/partner/envelopes/${env.envelope_id}`, { key: t.key });
    expect(got.status).toBe(200);
    expect(got.body.data.status).toBe("pending");
  });
});
