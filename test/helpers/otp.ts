import { env } from "cloudflare:test";
import { openText } from "../../src/lib/sealed-text";
import { SMS_BODY_LABEL } from "../../src/services/otp/code";
import { call, newTenant } from "./api";
import { sendableEnvelope } from "./signing";
import { shardDbOf } from "./shards";

export const PHONE = "+15125550147";

/** A sent one-signer envelope whose buyer verifies by SMS; `slug` is the send's signing session for the buyer. */
export async function sentOtpEnvelope(opts: { phone?: string; consent?: boolean } = {}) {
  const t = await newTenant({ name: "Lone Star Motors" });
  const e = await sendableEnvelope(t.key, ["buyer"], opts.consent ? { consumer_consent: true } : {});
  const buyerEmail = `ana.${crypto.randomUUID().slice(0, 8)}@example.com`;
  const sent = await call("POST", `/partner/envelopes/${e.envelope_id}/send`, {
    key: t.key,
    body: { signers: [{ role: "buyer", email: buyerEmail, name: "Ana Buyer", auth: "sms_otp", phone: opts.phone ?? PHONE }] },
  });
  if (sent.status !== 200) throw new Error(`send failed: ${sent.status} ${JSON.stringify(sent.body)}`);
  const buyer = sent.body.data.signers[0];
  return { ...t, envelopeId: e.envelope_id as string, slug: buyer.slug as string, signerId: buyer.signer_id as string, buyerEmail };
}

export type SmsRow = { id: string; signer_id: string; to_masked: string; provider: string; status: string; provider_message_id: string | null; error: string | null; body_sealed: string | null; created_at: string };

export async function smsOf(envelopeId: string): Promise<SmsRow[]> {
  return (await shardDbOf(envelopeId).prepare("SELECT * FROM sms_outbox WHERE envelope_id = ? ORDER BY created_at, rowid").bind(envelopeId).all<SmsRow>()).results;
}

/** The text of the last message to the signer, opened from the outbox the way GET /dev/sms opens it. */
export async function lastText(envelopeId: string): Promise<string> {
  const rows = await smsOf(envelopeId);
  const row = rows[rows.length - 1];
  if (!row?.body_sealed) throw new Error(`no readable text for ${envelopeId}`);
  const text = await openText({ secret: env.EMBED_TOKEN_SECRET!, label: SMS_BODY_LABEL, context: row.id, sealed: row.body_sealed });
  if (!text) throw new Error("the text does not open");
  return text;
}

export const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)![1]!;

/** Moves the signer's last send (and every text) `seconds` into the past: time passing, for the limits. */
export async function backdate(envelopeId: string, signerId: string, seconds: number) {
  const db = shardDbOf(envelopeId);
  const shift = `-${seconds} seconds`;
  await db.batch([
    db.prepare("UPDATE signer_otps SET last_sent_at = strftime('%Y-%m-%dT%H:%M:%fZ', last_sent_at, ?1), code_expires_at = strftime('%Y-%m-%dT%H:%M:%fZ', code_expires_at, ?1) WHERE signer_id = ?2").bind(shift, signerId),
    db.prepare("UPDATE sms_outbox SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', created_at, ?1) WHERE signer_id = ?2").bind(shift, signerId),
  ]);
}

export async function otpRow(envelopeId: string, signerId: string) {
  return shardDbOf(envelopeId).prepare("SELECT * FROM signer_otps WHERE signer_id = ?").bind(signerId).first<Record<string, any>>();
}
