import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { EsignVault, EsignVaultError, verifyWebhook } from "../../packages/sdk/src";
import { ALL_SCOPES, call, newTenant } from "../helpers/api";
import { absolute, buildPdf } from "../helpers/templates";
import { receiverUrl, adminToken, createEndpoint, waitForRequests } from "../helpers/webhooks";

/** The SDK pointed at the Worker of the test pool. */
const client = (apiKey: string, extra: Partial<ConstructorParameters<typeof EsignVault>[0]> = {}) =>
  new EsignVault({ apiKey, baseUrl: "http://localhost", fetch: (request) => SELF.fetch(request), ...extra });

/** The signer's side, which is not the partner API: the signer submits through their signing link. */
const submit = (slug: string, values: Record<string, string>) => call("POST", `/signing/${slug}/submit`, { body: { values } });

async function contractPdf() {
  const { bytes } = await buildPdf([{ lines: [{ text: "Retail installment contract", x: 72, y: 700 }] }]);
  return new Blob([bytes], { type: "application/pdf" });
}

describe("SDK: a whole lifecycle against the Worker", () => {
  it("template, envelope, send, sign, vault, certificate, transfer of control, each through the SDK", async () => {
    const scopes = [...ALL_SCOPES, "vault:control"];
    const [dealer, bank] = await Promise.all([newTenant({ name: "Dealer", scopes }), newTenant({ name: "Bank", scopes })]);
    const sdk = client(dealer.key);

    const template = await sdk.createTemplate({
      file: await contractPdf(),
      name: "Retail installment contract",
      fields: [absolute("buyer_signature", [{ page: 1, x: 0.1, y: 0.5, w: 0.3, h: 0.05 }], { role: "buyer", required: true })],
    });
    expect(template.template_id).toMatch(/^tmpl_/);

    const envelope = await sdk.createEnvelope({
      envelope_name: "Retail installment contract #1042",
      customer_email: "ann@example.com",
      customer_name: "Ann Buyer",
      template_id: template.template_id,
      secured_party: { name: "First Auto Finance LLC", role: "lender" },
    } as never);
    expect(envelope.status).toBe("pending");

    const sent = await sdk.sendEnvelope(envelope.envelope_id, { signers: [{ role: "buyer", email: "ann@example.com", name: "Ann Buyer", routing_order: 1 }] } as never);
    const slug = (sent as { signers: { slug: string }[] }).signers[0]!.slug;
    expect((await submit(slug, { buyer_signature: "Ann Buyer" })).status).toBe(200);
    expect((await sdk.getEnvelope(envelope.envelope_id)).status).toBe("completed");

    const vaulted = await sdk.vaultSigned(envelope.envelope_id);
    expect(vaulted).toMatchObject({ status: "vaulted", vaulted: true });
    const certificate = await sdk.getCertificate(envelope.envelope_id);
    expect(JSON.stringify(certificate)).toContain(envelope.envelope_id);

    let vaultId: string | undefined;
    for await (const record of sdk.paginate("/api/v2/partner/vault", { limit: 1 })) {
      if ((record as { envelope_id?: string }).envelope_id === envelope.envelope_id) vaultId = (record as { vault_id: string }).vault_id;
    }
    expect(vaultId).toMatch(/^vlt_/);

    const transfer = await sdk.offerTransfer(vaultId!, { kind: "assignment", to_org_id: bank.orgId } as never);
    expect(transfer).toMatchObject({ status: "pending", vault_id: vaultId });
    const accepted = await client(bank.key).answerTransfer(transfer as { transfer_id: string; vault_id: string }, "accept");
    expect(accepted).toMatchObject({ status: "accepted" });
    expect(await client(bank.key).getVaultRecord(vaultId!)).toMatchObject({ controller: { org_id: bank.orgId }, pending_transfer: null });
  }, 120_000); // sealing the signed PDF is the slow step on a loaded machine

  it("pages through a list: every envelope once, a page of `limit` at a time", async () => {
    const t = await newTenant();
    const sdk = client(t.key);
    const created = [];
    for (let i = 0; i < 5; i++) created.push((await sdk.createEnvelope({ envelope_name: `Contract ${i}`, customer_email: `b${i}@example.com`, customer_name: `Buyer ${i}` } as never)).envelope_id);
    const pages: number[] = [];
    const paging = client(t.key, { fetch: (request) => (pages.push(Number(new URL(request.url).searchParams.get("page"))), SELF.fetch(request)) });
    const seen: string[] = [];
    for await (const e of paging.paginate("/api/v2/partner/envelopes", { limit: 2 })) seen.push(e.envelope_id);
    expect(seen.sort()).toEqual([...created].sort());
    expect(pages).toEqual([1, 2, 3]);
  });

  it("throws EsignVaultError with status, code, details and the request id", async () => {
    const t = await newTenant();
    const sdk = client(t.key);
    const missing = await sdk.getEnvelope("env_00000000000000000000000000").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(EsignVaultError);
    expect(missing).toMatchObject({ status: 404, message: expect.stringContaining("not found") });
    expect((missing as EsignVaultError).code).toBe(((missing as EsignVaultError).body as { code?: string }).code ?? null);
    expect((missing as EsignVaultError).requestId).toMatch(/\S/);

    const invalid = (await sdk.createEnvelope({ envelope_name: "" } as never).catch((e: unknown) => e)) as EsignVaultError;
    expect(invalid).toBeInstanceOf(EsignVaultError);
    expect(invalid.status).toBe(422);
    expect(Array.isArray(invalid.details)).toBe(true);
    expect((invalid.details as { path: unknown[] }[]).length).toBeGreaterThan(0);
  });

  it("waits out a 429 for Retry-After (plus jitter) and resends the same Idempotency-Key", async () => {
    const t = await newTenant({ rpm: 1 });
    const waits: number[] = [];
    const sent: { status: number; key: string | null }[] = [];
    const sentRetryAfter: (string | null)[] = [];
    const sdk = client(t.key, {
      fetch: async (request) => {
        const res = await SELF.fetch(request);
        sent.push({ status: res.status, key: request.headers.get("Idempotency-Key") });
        if (res.status === 429) sentRetryAfter.push(res.headers.get("Retry-After"));
        return res;
      },
      retry: { maxAttempts: 3, sleep: async (ms) => void waits.push(ms), random: () => 0.5 },
    });
    await sdk.getEnvelope("env_00000000000000000000000000").catch(() => undefined); // spends the minute's one request
    sent.length = 0;
    const error = (await sdk.createEnvelope({ envelope_name: "Contract", customer_email: "b@example.com", customer_name: "Buyer" } as never).catch((e: unknown) => e)) as EsignVaultError;
    expect(error).toBeInstanceOf(EsignVaultError);
    expect(error.status).toBe(429);
    expect(sent.map((s) => s.status)).toEqual([429, 429, 429]);
    expect(new Set(sent.map((s) => s.key)).size).toBe(1);
    expect(sent[0]!.key).toBeTruthy();
    expect(waits).toHaveLength(2);
    // Retry-After (whole seconds up to the minute's end), 10% of jitter on top (random 0.5 of 20%), capped at a minute
    expect(Number(sentRetryAfter[0])).toBeGreaterThanOrEqual(1);
    for (const ms of waits) {
      expect(ms).toBeGreaterThanOrEqual(1000);
      expect(ms).toBeLessThanOrEqual(60_000);
    }
    expect(waits[0]).toBeGreaterThanOrEqual(Math.min(60_000, Number(sentRetryAfter[0]) * 1000));
  });

  it("succeeds once a 503 clears, and does not retry other errors", async () => {
    const t = await newTenant();
    let calls = 0;
    const sdk = client(t.key, {
      fetch: async (request) => {
        calls += 1;
        if (calls === 1) return new Response(JSON.stringify({ error: "busy", code: "unavailable" }), { status: 503, headers: { "Retry-After": "0" } });
        return SELF.fetch(request);
      },
      retry: { sleep: async () => undefined },
    });
    const e = await sdk.createEnvelope({ envelope_name: "Contract", customer_email: "b@example.com", customer_name: "Buyer" } as never);
    expect(e.status).toBe("pending");
    expect(calls).toBe(2);
    calls = 10;
    await sdk.getEnvelope("env_00000000000000000000000000").catch(() => undefined);
    expect(calls).toBe(11);
  });

  it("verifies a real webhook delivery with the endpoint's secret, and refuses it under another secret or body", async () => {
    const t = await newTenant();
    const target = receiverUrl("ok");
    const endpoint = await createEndpoint(await adminToken(t.orgId), { url: target.url });
    await client(t.key).createEnvelope({ envelope_name: "Contract", customer_email: "b@example.com", customer_name: "Buyer" } as never);
    const [delivery] = await waitForRequests(target.path, 1);
    const event = verifyWebhook(endpoint.secret, delivery!.headers, delivery!.body);
    expect(event).toMatchObject({ event_type: expect.stringMatching(/^envelope\./), org_id: t.orgId });
    expect(() => verifyWebhook(`whsec_${btoa("another secret of 32 bytes......")}`, delivery!.headers, delivery!.body)).toThrow();
    expect(() => verifyWebhook(endpoint.secret, delivery!.headers, delivery!.body.replace("envelope", "Envelope"))).toThrow();
  });
});
