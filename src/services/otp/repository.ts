import type { Row } from "../../db/row";
import type { signerOtps, smsOutbox } from "../../db/schema";
import type { ShardDb } from "../../lib/shards";
import type { SignerRow } from "../signers/repository";

export type SignerOtpRow = Row<typeof signerOtps>;
export type SmsOutboxRow = Row<typeof smsOutbox>;

/** The signer's passcode row, written with the send for a signer with `auth: "sms_otp"`. */
export function insertSignerOtp(db: ShardDb, signer: Pick<SignerRow, "id" | "envelope_id" | "org_id">, at: string): D1PreparedStatement {
  return db
    .prepare("INSERT INTO signer_otps (signer_id, envelope_id, org_id, attempts_used, created_at) VALUES (?, ?, ?, 0, ?)")
    .bind(signer.id, signer.envelope_id, signer.org_id, at);
}

export function getSignerOtp(db: ShardDb, signerId: string): Promise<SignerOtpRow | null> {
  return db.prepare("SELECT * FROM signer_otps WHERE signer_id = ?").bind(signerId).first<SignerOtpRow>();
}

export async function listSignerOtps(db: ShardDb, envelopeId: string): Promise<SignerOtpRow[]> {
  return (await db.prepare("SELECT * FROM signer_otps WHERE envelope_id = ?").bind(envelopeId).all<SignerOtpRow>()).results;
}

/** Texts sent to this signer since `since` (the daily limit), oldest first. */
export async function sendTimesSince(db: ShardDb, signerId: string, since: string): Promise<string[]> {
  const rows = await db.prepare("SELECT created_at FROM sms_outbox WHERE signer_id = ? AND created_at > ? ORDER BY created_at").bind(signerId, since).all<{ created_at: string }>();
  return rows.results.map((r) => r.created_at);
}

/** A new code replaces the last: its hash, when it lapses, no wrong entries yet, and when it was sent. */
export function signerOtpNewCode(db: ShardDb, signerId: string, input: { codeHash: string; expiresAt: string; at: string }): D1PreparedStatement {
  return db
    .prepare("UPDATE signer_otps SET code_hash = ?1, code_expires_at = ?2, attempts_used = 0, last_sent_at = ?3 WHERE signer_id = ?4 AND verified_at IS NULL")
    .bind(input.codeHash, input.expiresAt, input.at, signerId);
}

/**
 * A wrong code: one attempt used, counted in SQL so racing guesses each count; the last allowed one
 * spends the code. Answers the attempts used now (the maximum when the code was already spent).
 */
export async function signerOtpWrongCode(db: ShardDb, signerId: string, max: number): Promise<number> {
  const row = await db
    .prepare(
      `UPDATE signer_otps SET attempts_used = attempts_used + 1,
         code_hash = CASE WHEN attempts_used + 1 >= ?1 THEN NULL ELSE code_hash END,
         code_expires_at = CASE WHEN attempts_used + 1 >= ?1 THEN NULL ELSE code_expires_at END
       WHERE signer_id = ?2 AND verified_at IS NULL AND code_hash IS NOT NULL AND attempts_used < ?1
       RETURNING attempts_used`,
    )
    .bind(max, signerId)
    .first<{ attempts_used: number }>();
  return row?.attempts_used ?? max;
}

/** Verified: the code is gone for good. */
export function signerOtpVerified(db: ShardDb, signerId: string, at: string): D1PreparedStatement {
  return db.prepare("UPDATE signer_otps SET verified_at = ?1, code_hash = NULL, code_expires_at = NULL WHERE signer_id = ?2 AND verified_at IS NULL").bind(at, signerId);
}

/** A correction of the signer's phone starts the passcode over (as it does KBA). */
export function signerOtpReset(db: ShardDb, signerId: string): D1PreparedStatement {
  return db.prepare("UPDATE signer_otps SET verified_at = NULL, code_hash = NULL, code_expires_at = NULL, attempts_used = 0 WHERE signer_id = ?").bind(signerId);
}

export function smsOutboxInsert(db: ShardDb, row: Omit<SmsOutboxRow, "provider_message_id" | "error">): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO sms_outbox (id, org_id, envelope_id, signer_id, to_masked, provider, status, body_sealed, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(row.id, row.org_id, row.envelope_id, row.signer_id, row.to_masked, row.provider, row.status, row.body_sealed, row.created_at);
}

export async function smsOutboxOutcome(db: ShardDb, id: string, input: { status: "queued" | "sent" | "failed"; providerMessageId: string | null; error: string | null }): Promise<void> {
  await db.prepare("UPDATE sms_outbox SET status = ?, provider_message_id = ?, error = ? WHERE id = ?").bind(input.status, input.providerMessageId, input.error, id).run();
}

export async function listRecentSmsOutbox(db: ShardDb, limit: number): Promise<SmsOutboxRow[]> {
  return (await db.prepare("SELECT * FROM sms_outbox ORDER BY created_at DESC LIMIT ?").bind(limit).all<SmsOutboxRow>()).results;
}
