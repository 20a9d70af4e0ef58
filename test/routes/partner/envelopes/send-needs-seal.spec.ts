import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../../src/env";
import { call, callWith, newTenant } from "../../../helpers/api";
import { batchRow, bulkTenant, readyBatch } from "../../../helpers/bulk";
import { outboxOf, sendableEnvelope, signerRows } from "../../../helpers/signing";

/** The ways a deployment's seal can be unusable, and the variable each refusal must name. */
const UNUSABLE: { bindings: Partial<Env>; names: string }[] = [
  { bindings: { SEAL_PRIVATE_KEY: undefined }, names: "SEAL_PRIVATE_KEY" },
  { bindings: { SEAL_CERTIFICATE: undefined }, names: "SEAL_CERTIFICATE" },
  { bindings: { SEAL_PRIVATE_KEY: "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----" }, names: "SEAL_PRIVATE_KEY" },
  { bindings: { SEAL_CERTIFICATE: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----" }, names: "SEAL_CERTIFICATE" },
  // a key that is not the certificate's: every seal would fail
  { bindings: { SEAL_PRIVATE_KEY: env.TEST_LT_SEAL_PRIVATE_KEY }, names: "SEAL_PRIVATE_KEY" },
];

const statusOf = async (key: string, envelopeId: string) => (await call("GET", `/partner/envelopes/${envelopeId}/status`, { key })).body.data.status;

describe("sending needs a usable seal: refused at send (503 naming the variable), never at the last signer's submit", () => {
  it("a partner send answers 503 naming the missing or unusable variable, and nothing is sent", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    for (const { bindings, names } of UNUSABLE) {
      const res = await callWith({ ...env, ...bindings }, "POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: {} });
      expect(res.status, names).toBe(503);
      expect(res.body.error).toContain(names);
    }
    expect(await statusOf(t.key, e.envelope_id)).toBe("pending");
    expect(await signerRows(e.envelope_id)).toHaveLength(0);
    expect(await outboxOf(e.envelope_id)).toHaveLength(0);
    // configured again, the same envelope goes out
    const sent = await callWith(env, "POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: {} });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.data.status).toBe("sent");
  });

  it("a console send and a bulk submission are refused the same way", async () => {
    const t = await bulkTenant();
    const headers = { "X-Org-Id": t.orgId };
    const e = await sendableEnvelope(t.key);
    const consoleSend = await callWith({ ...env, SEAL_PRIVATE_KEY: undefined }, "POST", `/envelopes/${e.envelope_id}/send`, { bearer: t.admin, headers, body: {} });
    expect(consoleSend.status).toBe(503);
    expect(consoleSend.body.error).toContain("SEAL_PRIVATE_KEY");
    expect(await statusOf(t.key, e.envelope_id)).toBe("pending");

    const { batchId } = await readyBatch(t, { n: 2 });
    const bulk = await callWith({ ...env, SEAL_CERTIFICATE: "garbage" }, "POST", `/bulk-send/${batchId}/submit`, { bearer: t.admin, headers });
    expect(bulk.status).toBe(503);
    expect(bulk.body.error).toContain("SEAL_CERTIFICATE");
    expect((await batchRow(batchId))!.status).toBe("ready");
  });
});
