import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, callWith } from "../../../helpers/api";
import { bulkTenant, readyBatch, runToEnd, seedCustomers, type BulkTenant } from "../../../helpers/bulk";
import { codeIn, lastText, PHONE } from "../../../helpers/otp";
import { sendableEnvelope } from "../../../helpers/signing";
import { signing } from "../../../helpers/signing-flow";

const MASKED = "+1******0147";
type Item = { customer_id: string; locale: string | null; auth: string | null; phone: string | null; envelope_id: string; status: string };

const itemsOf = async (t: BulkTenant, batchId: string) => (await t.as("GET", `/bulk-send/${batchId}`)).body.data.items as Item[];
const pathsOf = (details: { path: (string | number)[] }[]) => details.map((d) => d.path.join("."));
/** The signing session the partner hands the envelope's first signer. */
async function slugOf(t: BulkTenant, envelopeId: string): Promise<string> {
  const links = await call("GET", `/partner/envelopes/${envelopeId}/signing-links`, { key: t.key });
  expect(links.status, JSON.stringify(links.body)).toBe(200);
  return links.body.data.signers[0].slug;
}

describe("bulk send: each item says how its signer signs (items, auth sms_otp with a phone)", () => {
  it("sends an item with auth sms_otp a signer who must enter the texted code before the document; the other signs with the link alone", async () => {
    const t = await bulkTenant();
    const customers = await seedCustomers(t.orgId, 2);
    const { batchId } = await readyBatch(t, { customers });
    const set = await t.as("POST", `/bulk-send/${batchId}/items`, {
      items: [{ customer_id: customers[0], locale: "es", auth: "sms_otp", phone: PHONE }, { customer_id: customers[1] }],
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data).toEqual({ added: 2, skipped_no_email: [], rejected: [] });
    // the read shows each item's auth and the masked phone before and after the send
    expect((await itemsOf(t, batchId)).map((i) => [i.customer_id, i.locale, i.auth, i.phone])).toEqual([
      [customers[0], "es", "sms_otp", MASKED],
      [customers[1], null, null, null],
    ]);
    expect((await t.as("POST", `/bulk-send/${batchId}/submit`)).status).toBe(202);
    expect((await runToEnd(batchId)).status).toBe("completed");

    const items = await itemsOf(t, batchId);
    const [texted, plain] = [items.find((i) => i.customer_id === customers[0])!, items.find((i) => i.customer_id === customers[1])!];
    expect(texted).toMatchObject({ status: "sent", auth: "sms_otp", phone: MASKED, locale: "es" });
    expect(plain).toMatchObject({ status: "sent", auth: null, phone: null });
    const signer = async (envelopeId: string) => (await call("GET", `/partner/envelopes/${envelopeId}`, { key: t.key })).body.data.signers[0];
    expect(await signer(texted.envelope_id)).toMatchObject({ auth: "sms_otp", otp: { phone: MASKED, verified: false } });
    expect(await signer(plain.envelope_id)).toMatchObject({ auth: null, otp: null });

    // the texted client's signing page: nothing until the code, then the document
    const slug = await slugOf(t, texted.envelope_id);
    const before = await signing("GET", slug);
    expect(before.body.data).toMatchObject({ otp: { required: true, verified: false, phone: MASKED }, fields: [] });
    const blocked = await signing("GET", slug, "document");
    expect(blocked.status).toBe(403);
    expect(blocked.body.code).toBe("otp_required");
    expect((await signing("POST", slug, "otp")).status).toBe(200);
    const verified = await signing("POST", slug, "otp/verify", { code: codeIn(await lastText(texted.envelope_id)) });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect((await signing("GET", slug, "document")).status).toBe(200);
    // the other client opens the document with the link alone
    expect((await signing("GET", await slugOf(t, plain.envelope_id), "document")).status).toBe(200);
  });

  it("refuses a malformed list with 422 naming the field, and keeps the batch's clients as they were", async () => {
    const t = await bulkTenant();
    const customers = await seedCustomers(t.orgId, 2);
    const { batchId } = await readyBatch(t, { customers });
    const [a, b] = customers as [string, string];
    const refused: [unknown, string, string?][] = [
      // the single send's rule, with its message: sms_otp needs the phone
      [{ items: [{ customer_id: a, auth: "sms_otp" }] }, "items.0.phone", "auth sms_otp needs the signer's phone (E.164, such as +15551234567)"],
      [{ items: [{ customer_id: a }, { customer_id: b, phone: PHONE }] }, "items.1.auth"],
      [{ items: [{ customer_id: a, auth: "sms_otp", phone: "512-555-0147" }] }, "items.0.phone", "an E.164 phone number such as +15551234567"],
      [{ items: [{ customer_id: a, auth: "email", phone: PHONE }] }, "items.0.auth"],
      [{ items: [{ customer_id: a, locale: "fr" }] }, "items.0.locale"],
      [{ customer_ids: [a], items: [{ customer_id: b }] }, "items"],
      [{}, "customer_ids"],
      [{ items: [] }, "items"],
      [{ items: Array.from({ length: 1001 }, (_, i) => ({ customer_id: `cust_${i}` })) }, "items"],
      [{ items: [{ customer_id: a }], phones: { [a]: PHONE } }, "phones"],
      [{ items: [{ customer_id: a }], locales: { [a]: "es" } }, "locales"],
      [{ items: [{ customer_id: a }, { customer_id: b }, { customer_id: a, auth: "sms_otp", phone: PHONE }] }, "items.2.customer_id"],
    ];
    for (const [body, path, message] of refused) {
      const res = await t.as("POST", `/bulk-send/${batchId}/items`, body);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(pathsOf(res.body.details), JSON.stringify(res.body.details)).toContain(path);
      if (message) expect(res.body.details.find((d: { path: unknown[] }) => d.path.join(".") === path).message).toBe(message);
    }
    expect((await itemsOf(t, batchId)).map((i) => [i.customer_id, i.auth])).toEqual([
      [a, null],
      [b, null],
    ]);
    // another organization's customer in items is rejected, as in customer_ids, and adds nothing
    const [foreign] = await seedCustomers((await bulkTenant("Other Motors")).orgId, 1);
    const mixed = await t.as("POST", `/bulk-send/${batchId}/items`, { items: [{ customer_id: a }, { customer_id: foreign, auth: "sms_otp", phone: PHONE }] });
    expect(mixed.status, JSON.stringify(mixed.body)).toBe(200);
    expect(mixed.body.data).toEqual({ added: 1, skipped_no_email: [], rejected: [foreign] });
    expect((await itemsOf(t, batchId)).map((i) => i.customer_id)).toEqual([a]);
  });

  it("refuses sms_otp when the deployment has no SMS provider, as a single send does (503 naming SMS_PROVIDER), before changing anything", async () => {
    const t = await bulkTenant();
    const customers = await seedCustomers(t.orgId, 2);
    const { batchId } = await readyBatch(t, { customers });
    const [a, b] = customers as [string, string];
    const headers = { Authorization: `Bearer ${t.admin}`, "X-Org-Id": t.orgId };
    const texted = { items: [{ customer_id: a, auth: "sms_otp", phone: PHONE }, { customer_id: b }] };
    const setWith = (bindings: typeof env, body: unknown) => callWith(bindings, "POST", `/bulk-send/${batchId}/items`, { headers, body });

    const production = await setWith({ ...env, SERVICE_ENV: "production", SMS_PROVIDER: "outbox" }, texted);
    expect(production.status, JSON.stringify(production.body)).toBe(503);
    expect(production.body.error).toContain("SMS_PROVIDER");
    // the same refusal as the single send's: status, code and details
    const e = await sendableEnvelope(t.key);
    const signers = [{ role: "buyer", email: "a@example.com", name: "A", auth: "sms_otp", phone: PHONE }];
    const single = await callWith({ ...env, SERVICE_ENV: "production", SMS_PROVIDER: "outbox" }, "POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: { send_email: false, signers } });
    expect([single.status, single.body.code, single.body.details]).toEqual([production.status, production.body.code, production.body.details]);

    const twilio = { ...env, SMS_PROVIDER: "twilio", TWILIO_ACCOUNT_SID: "", TWILIO_AUTH_TOKEN: "", TWILIO_FROM_NUMBER: "" };
    for (const body of [texted, { customer_ids: customers, phones: { [b]: PHONE } }]) {
      const res = await setWith(twilio, body);
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(res.body).toMatchObject({ code: "sms_not_configured", details: { variables: ["TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_FROM_NUMBER"] } });
    }
    expect((await itemsOf(t, batchId)).map((i) => [i.customer_id, i.auth])).toEqual([
      [a, null],
      [b, null],
    ]);
    // a list without sms_otp needs no provider
    const plain = await setWith(twilio, { items: [{ customer_id: b, locale: "es" }, { customer_id: a }] });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect((await itemsOf(t, batchId)).map((i) => [i.customer_id, i.locale, i.auth])).toEqual([
      [b, "es", null],
      [a, null, null],
    ]);
  });

  it("still takes the deprecated phones map with customer_ids, read back as auth sms_otp; the API reference marks it deprecated in favour of items", async () => {
    const t = await bulkTenant();
    const customers = await seedCustomers(t.orgId, 2);
    const { batchId } = await readyBatch(t, { customers });
    const set = await t.as("POST", `/bulk-send/${batchId}/items`, { customer_ids: customers, locales: { [customers[1]!]: "es" }, phones: { [customers[0]!]: PHONE } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((await itemsOf(t, batchId)).map((i) => [i.locale, i.auth, i.phone])).toEqual([
      [null, "sms_otp", MASKED],
      ["es", null, null],
    ]);
    const doc = (await call("GET", "/openapi.json")).body;
    const body = doc.components.schemas.SetBulkItems;
    expect(body.properties.phones).toMatchObject({ deprecated: true, description: expect.stringContaining("use `items`") });
    expect(body.properties.customer_ids.deprecated).toBeUndefined();
    expect(doc.components.schemas.BulkItemInput.properties.auth.enum).toEqual(["sms_otp"]);
  });
});
