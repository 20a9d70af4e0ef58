import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { app } from "../../../src/app";
import type { Env } from "../../../src/env";
import { call, callWith, newTenant } from "../../helpers/api";
import { auditOf, usageLinesOf } from "../../helpers/kba";
import { backdate, codeIn, lastText, otpRow, PHONE, sentOtpEnvelope, smsOf } from "../../helpers/otp";
import { sendableEnvelope } from "../../helpers/signing";
import { placedText, signing, storedDocument } from "../../helpers/signing-flow";

const MASKED = "+1******0147";
const BLOCKED: [string, string, unknown?][] = [
  ["GET", "document"],
  ["POST", "view"],
  ["POST", "consent", { agree: true }],
  ["POST", "submit", { values: { buyer_signature: "Ana Buyer" } }],
];
const otp = (slug: string) => signing("POST", slug, "otp");
const verify = (slug: string, code: string) => signing("POST", slug, "otp/verify", { code });
/** A 6-digit code that is not `code`. */
const other = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("SMS one-time passcode: the send", () => {
  it("refuses sms_otp without a phone, and a phone that is not E.164, naming the field", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    for (const signer of [
      { role: "buyer", email: "a@example.com", name: "A", auth: "sms_otp" },
      { role: "buyer", email: "a@example.com", name: "A", auth: "sms_otp", phone: "512-555-0147" },
    ]) {
      const res = await call("POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: { signers: [signer] } });
      expect(res.status).toBe(422);
      expect(res.body.details.map((d: { path: unknown[] }) => d.path.join("."))).toContain("signers.0.phone");
    }
    const res = await call("POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: { signers: [{ role: "buyer", email: "a@example.com", name: "A", auth: "email" }] } });
    expect(res.status).toBe(422);
  });

  it("refuses, before anything is sent, a passcode signer when production has no SMS provider (503 naming SMS_PROVIDER)", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    const signers = [{ role: "buyer", email: "a@example.com", name: "A", auth: "sms_otp", phone: PHONE }];
    const res = await callWith({ ...env, SERVICE_ENV: "production", SMS_PROVIDER: "outbox" }, "POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: { send_email: false, signers } });
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error).toContain("SMS_PROVIDER");
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key })).body.data.signers).toEqual([]);
  });

  it("keeps the phone off the audit and the event: masked", async () => {
    const s = await sentOtpEnvelope();
    const send = (await auditOf(s.envelopeId)).find((a) => a.action === "envelope.send")!;
    expect(send.data.signers[0]).toMatchObject({ auth: "sms_otp", phone: MASKED });
    expect(JSON.stringify(await auditOf(s.envelopeId))).not.toContain(PHONE);
  });
});

describe("SMS one-time passcode: the signer's journey", () => {
  it("shows nothing until verified, texts a code, refuses a wrong one, opens the document on the right one, and the certificate names it", async () => {
    const s = await sentOtpEnvelope();

    const before = await signing("GET", s.slug);
    expect(before.status).toBe(200);
    expect(before.body.data).toMatchObject({ otp: { required: true, verified: false, phone: MASKED, verified_at: null }, fields: [] });
    for (const [method, action, body] of BLOCKED) {
      const res = await signing(method, s.slug, action, body);
      expect(res.status, `${method} ${action}`).toBe(403);
      expect(res.body.code).toBe("otp_required");
    }
    // no code yet
    expect((await verify(s.slug, "123456")).body.code).toBe("otp_expired");

    const sent = await otp(s.slug);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.data).toMatchObject({ phone: MASKED, sends_left_today: 4 });
    expect(Date.parse(sent.body.data.expires_at) - Date.now()).toBeGreaterThan(590_000);
    const text = await lastText(s.envelopeId);
    const code = codeIn(text);
    expect(text).toContain("expires in 10 minutes");
    const [row] = await smsOf(s.envelopeId);
    expect(row).toMatchObject({ to_masked: MASKED, provider: "outbox", status: "queued" });

    // the code is stored as a keyed hash, never itself
    const stored = await otpRow(s.envelopeId, s.signerId);
    expect(stored!.code_hash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(code);
    expect(JSON.stringify(await auditOf(s.envelopeId))).not.toContain(code);

    // one a minute: the second asks again too soon
    const soon = await otp(s.slug);
    expect(soon.status).toBe(429);
    expect(soon.body.code).toBe("otp_send_limit");
    expect(Number(soon.headers.get("Retry-After"))).toBeGreaterThan(50);

    const wrong = await verify(s.slug, other(code));
    expect(wrong.status).toBe(422);
    expect(wrong.body.code).toBe("otp_invalid");
    expect(wrong.body.details[0]).toMatchObject({ path: ["code"], attempts_left: 4 });
    expect((await signing("GET", s.slug, "document")).status).toBe(403);

    const right = await verify(s.slug, code);
    expect(right.status).toBe(200);
    expect(right.body.data).toEqual({ verified: true, verified_at: expect.any(String) });
    expect((await verify(s.slug, code)).body.data).toEqual(right.body.data);
    expect((await otp(s.slug)).body.code).toBe("otp_already_verified");

    const after = await signing("GET", s.slug);
    expect(after.body.data.otp).toEqual({ required: true, verified: true, phone: MASKED, verified_at: right.body.data.verified_at });
    expect(after.body.data.fields.map((f: { name: string }) => f.name)).toContain("buyer_signature");
    expect((await signing("GET", s.slug, "document")).status).toBe(200);
    expect((await signing("POST", s.slug, "view")).status).toBe(200);

    // the partner reads back the signer's auth and verification
    const read = await call("GET", `/partner/envelopes/${s.envelopeId}`, { key: s.key });
    expect(read.body.data.signers[0]).toMatchObject({ auth: "sms_otp", otp: { phone: MASKED, verified: true, verified_at: right.body.data.verified_at } });

    // billing: one sms_otp line per code sent
    const lines = await usageLinesOf(s.orgId, "sms_otp");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ envelope_id: s.envelopeId, signer_id: s.signerId, quantity: 1 });

    const audit = await auditOf(s.envelopeId);
    expect(audit.find((a) => a.action === "signer.otp_sent")!.data).toMatchObject({ phone: MASKED, provider: "outbox" });
    expect(audit.find((a) => a.action === "signer.otp_verified")).toMatchObject({ actor_type: "signer", data: { phone: MASKED, verified_at: right.body.data.verified_at } });

    const submitted = await signing("POST", s.slug, "submit", { values: { buyer_signature: "Ana Buyer" } });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    const signed = await storedDocument(s.envelopeId, "signed");
    const pdfText = (await placedText(signed!.bytes)).pages.join(" ");
    expect(pdfText).toMatch(/SMS passcode to \+1\*+0147 verified \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
  });

  it("spends a code after five wrong tries; a new code a minute later works", async () => {
    const s = await sentOtpEnvelope();
    await otp(s.slug);
    const code = codeIn(await lastText(s.envelopeId));
    for (let left = 4; left >= 1; left--) expect((await verify(s.slug, other(code))).body.details[0].attempts_left).toBe(left);
    const fifth = await verify(s.slug, other(code));
    expect(fifth.body.code).toBe("otp_attempts_exhausted");
    const late = await verify(s.slug, code);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe("otp_expired");

    await backdate(s.envelopeId, s.signerId, 61);
    expect((await otp(s.slug)).status).toBe(200);
    const fresh = codeIn(await lastText(s.envelopeId));
    expect((await verify(s.slug, fresh)).status).toBe(200);
  });

  it("refuses a code past its 10 minutes", async () => {
    const s = await sentOtpEnvelope();
    await otp(s.slug);
    const code = codeIn(await lastText(s.envelopeId));
    await backdate(s.envelopeId, s.signerId, 601);
    const res = await verify(s.slug, code);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("otp_expired");
  });

  it("texts at most five codes in a rolling day: the sixth is 429 with Retry-After until the first is a day old", async () => {
    const s = await sentOtpEnvelope();
    for (let i = 0; i < 5; i++) {
      const res = await otp(s.slug);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.sends_left_today).toBe(4 - i);
      await backdate(s.envelopeId, s.signerId, 120);
    }
    const sixth = await otp(s.slug);
    expect(sixth.status).toBe(429);
    expect(sixth.body.code).toBe("otp_daily_limit");
    const retry = Number(sixth.headers.get("Retry-After"));
    expect(retry).toBeGreaterThan(86_400 - 700);
    expect(retry).toBeLessThanOrEqual(86_400 - 600);
    expect(await usageLinesOf(s.orgId, "sms_otp")).toHaveLength(5);
  });

  it("comes after consent's place: on a consent envelope, consent waits for the code", async () => {
    const s = await sentOtpEnvelope({ consent: true });
    expect((await signing("POST", s.slug, "consent", { agree: true })).body.code).toBe("otp_required");
    await otp(s.slug);
    await verify(s.slug, codeIn(await lastText(s.envelopeId)));
    expect((await signing("GET", s.slug, "document")).body.code).toBe("consent_required");
    expect((await signing("POST", s.slug, "consent", { agree: true })).status).toBe(200);
    expect((await signing("GET", s.slug, "document")).status).toBe(200);
  });

  it("answers 404 otp_not_required on a link without the step", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key);
    const sent = await call("POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: { signers: [{ role: "buyer", email: "b@example.com", name: "B" }] } });
    const slug = sent.body.data.signers[0].slug;
    expect((await signing("GET", slug)).body.data.otp).toEqual({ required: false, verified: false, phone: null, verified_at: null });
    const res = await otp(slug);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("otp_not_required");
    const read = await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key });
    expect(read.body.data.signers[0]).toMatchObject({ auth: null, otp: null });
  });
});

describe("SMS providers", () => {
  const TWILIO_SID = "AC00000000000000000000000000000001"; // what test/global/twilio-stand-in.mjs accepts
  const standIn = (behaviour: string) => `http://127.0.0.1:${inject("twilioPort")}/${behaviour}/${crypto.randomUUID()}`;
  const twilioEnv = (base: string, overrides: Partial<Env> = {}): Env => ({
    ...env,
    SMS_PROVIDER: "twilio",
    TWILIO_ACCOUNT_SID: TWILIO_SID,
    TWILIO_AUTH_TOKEN: "test-twilio-auth-token",
    TWILIO_FROM_NUMBER: "+15005550006",
    TWILIO_API_BASE: base,
    ...overrides,
  });
  async function received(base: string): Promise<{ path: string; headers: Record<string, string>; body: Record<string, string> }[]> {
    return (await fetch(`http://127.0.0.1:${inject("twilioPort")}/_records?base=${encodeURIComponent(new URL(base).pathname)}`)).json() as never;
  }

  it("twilio: posts the code to the Messages API with Basic auth and a form body; the outbox keeps no text", async () => {
    const s = await sentOtpEnvelope();
    const base = standIn("ok");
    const res = await callWith(twilioEnv(base), "POST", `/signing/${s.slug}/otp`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [req] = await received(base);
    expect(req!.path).toBe(`${new URL(base).pathname}/2010-04-01/Accounts/${TWILIO_SID}/Messages.json`);
    expect(req!.headers.authorization).toBe(`Basic ${btoa(`${TWILIO_SID}:test-twilio-auth-token`)}`);
    expect(req!.body).toMatchObject({ To: PHONE, From: "+15005550006" });
    const code = codeIn(req!.body.Body!);
    const [row] = await smsOf(s.envelopeId);
    expect(row).toMatchObject({ provider: "twilio", status: "sent", provider_message_id: expect.stringMatching(/^SM[0-9a-f]{32}$/), body_sealed: null });
    expect((await callWith(twilioEnv(base), "POST", `/signing/${s.slug}/otp/verify`, { body: { code } })).status).toBe(200);
  });

  it("twilio refusing the number: 503 sms_not_sent, the outbox row failed with Twilio's reason", async () => {
    const s = await sentOtpEnvelope();
    const res = await callWith(twilioEnv(standIn("invalid-to")), "POST", `/signing/${s.slug}/otp`);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe("sms_not_sent");
    const [row] = await smsOf(s.envelopeId);
    expect(row).toMatchObject({ status: "failed", error: expect.stringContaining("21211") });
  });

  it("twilio with a wrong auth token: the stand-in's 401 is a failed send, never a verified phone", async () => {
    const s = await sentOtpEnvelope();
    const res = await callWith(twilioEnv(standIn("ok"), { TWILIO_AUTH_TOKEN: "wrong" }), "POST", `/signing/${s.slug}/otp`);
    expect(res.status).toBe(503);
    expect((await smsOf(s.envelopeId))[0]!.error).toContain("20003");
  });

  it("twilio missing a setting, or the outbox in production: 503 naming the variable", async () => {
    const s = await sentOtpEnvelope();
    const missing = await callWith(twilioEnv(standIn("ok"), { TWILIO_FROM_NUMBER: "" }), "POST", `/signing/${s.slug}/otp`);
    expect(missing.status).toBe(503);
    expect(missing.body.error).toContain("TWILIO_FROM_NUMBER");
    const prod = await callWith({ ...env, SERVICE_ENV: "production", SMS_PROVIDER: "outbox" }, "POST", `/signing/${s.slug}/otp`);
    expect(prod.status).toBe(503);
    expect(prod.body.error).toContain("SMS_PROVIDER");
    expect(await smsOf(s.envelopeId)).toHaveLength(0);
  });

  it("GET /dev/sms lists the outbox's texts in development, and is a 404 without DEV_PAGES", async () => {
    const s = await sentOtpEnvelope();
    await otp(s.slug);
    const code = codeIn(await lastText(s.envelopeId));
    const page = async (bindings: Env) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request("http://localhost/dev/sms"), bindings, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    const res = await page({ ...env, DEV_PAGES: "true" });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(MASKED);
    expect(html).toContain(code);
    expect((await page({ ...env, DEV_PAGES: "false" })).status).toBe(404);
  });
});

describe("SMS one-time passcode: a correction", () => {
  it("starts the passcode over with the new link, and refuses to remove the phone", async () => {
    const s = await sentOtpEnvelope();
    await otp(s.slug);
    expect((await verify(s.slug, codeIn(await lastText(s.envelopeId)))).status).toBe(200);
    const path = `/partner/envelopes/${s.envelopeId}/signers/${s.signerId}`;
    const removed = await call("PATCH", path, { key: s.key, body: { phone: null } });
    expect(removed.status).toBe(409);
    expect(removed.body.code).toBe("otp_needs_phone");
    const corrected = await call("PATCH", path, { key: s.key, body: { phone: "+15125550199" } });
    expect(corrected.status, JSON.stringify(corrected.body)).toBe(200);
    const links = await call("GET", `/partner/envelopes/${s.envelopeId}/signing-links`, { key: s.key });
    const slug = links.body.data.signers[0].slug;
    expect((await signing("GET", slug)).body.data.otp).toEqual({ required: true, verified: false, phone: "+1******0199", verified_at: null });
    expect((await signing("GET", slug, "document")).body.code).toBe("otp_required");
  });
});
