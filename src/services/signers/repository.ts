import type { Row } from "../../db/row";
import type { signers } from "../../db/schema";
import type { SIGNER_STATUSES } from "./schema";
import type { ShardDb } from "../../lib/shards";

export type SignerStatus = (typeof SIGNER_STATUSES)[number];

/** A signer row as D1 returns it; `slug_hash` is "sha256:" + hex of the permanent slug (./slug.ts), never the slug. */
export type SignerRow = Row<typeof signers>;

/** The envelope's signers in signing order; within one order, in the order the sender listed them. */
export function selectSigners(db: ShardDb, envelopeId: string): D1PreparedStatement {
  return db.prepare("SELECT * FROM signers WHERE envelope_id = ? ORDER BY routing_order, rowid").bind(envelopeId);
}

/** selectSigners for many envelopes at once, each envelope's in the same order. */
export function selectSignersOf(db: ShardDb, envelopeIds: string[]): D1PreparedStatement {
  return db.prepare("SELECT * FROM signers WHERE envelope_id IN (SELECT value FROM json_each(?)) ORDER BY envelope_id, routing_order, rowid").bind(JSON.stringify(envelopeIds));
}

export async function listSigners(db: ShardDb, envelopeId: string): Promise<SignerRow[]> {
  return (await selectSigners(db, envelopeId).all<SignerRow>()).results;
}

export function insertSigner(db: ShardDb, s: SignerRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO signers (id, envelope_id, org_id, role, email, name, routing_order, status, slug_hash, viewed_at, signed_at, created_at, phone)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(s.id, s.envelope_id, s.org_id, s.role, s.email, s.name, s.routing_order, s.status, s.slug_hash, s.viewed_at, s.signed_at, s.created_at, s.phone ?? null);
}

/**
 * The signers whose turn it is: those of the lowest routing order that still has a signer who has not
 * completed. Signers of one order sign in parallel; the next order's turn comes when all of them have
 * completed. Nobody's turn once a signer has declined.
 */
export function signersWhoseTurnItIs<S extends Pick<SignerRow, "routing_order" | "status">>(signers: S[]): S[] {
  if (signers.some((s) => s.status === "declined")) return [];
  const open = signers.filter((s) => s.status !== "completed");
  if (open.length === 0) return [];
  const turn = Math.min(...open.map((s) => s.routing_order));
  return open.filter((s) => s.routing_order === turn);
}

/** What a payment token needs of a signer, by id in any organization (payments/signer-payment-token.ts). */
export function findSignerForPayment(
  db: ShardDb,
  signerId: string,
): Promise<Pick<SignerRow, "id" | "envelope_id" | "org_id" | "email" | "status" | "last_resent_at" | "consent_given_at"> | null> {
  return db
    .prepare("SELECT id, envelope_id, org_id, email, status, last_resent_at, consent_given_at FROM signers WHERE id = ?")
    .bind(signerId)
    .first<Pick<SignerRow, "id" | "envelope_id" | "org_id" | "email" | "status" | "last_resent_at" | "consent_given_at">>();
}

/**
 * Stores the hash of the slug a signer's invitation carries, unless the signer was already invited
 * (their link must keep working): goes right before the invitation's outbox INSERT
 * (email/invitation.ts).
 */
export function signerInvitationLinkUpdate(db: ShardDb, signerId: string, slugHash: string): D1PreparedStatement {
  return db
    .prepare("UPDATE signers SET slug_hash = ?1 WHERE id = ?2 AND NOT EXISTS (SELECT 1 FROM email_outbox WHERE signer_id = ?2 AND kind = 'invitation')")
    .bind(slugHash, signerId);
}

/** The signer has signed: a repeat or a declined signer changes nothing. */
export function signerCompletedStatement(db: ShardDb, signerId: string, at: string): D1PreparedStatement {
  return db
    .prepare("UPDATE signers SET status = 'completed', signed_at = ?, viewed_at = COALESCE(viewed_at, ?) WHERE id = ? AND status NOT IN ('completed', 'declined')")
    .bind(at, at, signerId);
}

/** One signer by id, whatever the organization (the credential that named it was already checked). */
export function getSigner(db: ShardDb, signerId: string): Promise<SignerRow | null> {
  return db.prepare("SELECT * FROM signers WHERE id = ?").bind(signerId).first<SignerRow>();
}

// ---- appended by helper E: signing verbs and credentials ----

/** The signer's first open: `viewed_at`, and `pending` -> `viewed` (signing/view-signing.ts). */
export function signerViewedUpdate(db: ShardDb, signerId: string, at: string): D1PreparedStatement {
  return db
    .prepare("UPDATE signers SET viewed_at = ?, status = CASE WHEN status = 'pending' THEN 'viewed' ELSE status END WHERE id = ? AND viewed_at IS NULL")
    .bind(at, signerId);
}

/** The signer consents to electronic records (docs/consumer-signing.md; signing/consent-signing.ts), once, while still to sign. */
export function signerConsentUpdate(db: ShardDb, signerId: string, at: string): D1PreparedStatement {
  return db
    .prepare("UPDATE signers SET consent_given_at = ? WHERE id = ? AND consent_given_at IS NULL AND status NOT IN ('completed', 'declined')")
    .bind(at, signerId);
}

/** The signer declines, unless already signed (signing/decline-signing.ts). */
export function signerDeclinedUpdate(db: ShardDb, signerId: string): D1PreparedStatement {
  return db.prepare("UPDATE signers SET status = 'declined' WHERE id = ? AND status <> 'completed'").bind(signerId);
}

/**
 * The signer whose slug hash is `hash`, or whose row still holds the raw slug `raw` (never a value
 * already in the hashed form, prefixed `hashedPrefix`): signers/resolve-credential.ts.
 */
export function findSignerBySlug(db: ShardDb, hash: string, raw: string, hashedPrefix: string): Promise<{ id: string; slug_hash: string } | null> {
  return db
    .prepare(`SELECT id, slug_hash FROM signers WHERE slug_hash = ?1 OR (slug_hash = ?2 AND slug_hash NOT LIKE '${hashedPrefix}%')`)
    .bind(hash, raw)
    .first<{ id: string; slug_hash: string }>();
}

/** Rewrites a raw slug as its hash, guarded on the raw value so two first uses race harmlessly. */
export async function rehashSignerSlug(db: ShardDb, signerId: string, raw: string, hash: string): Promise<void> {
  await db.prepare("UPDATE signers SET slug_hash = ? WHERE id = ? AND slug_hash = ?").bind(hash, signerId, raw).run();
}

// ---- appended by helper C: corrections (docs/consumer-signing.md; services/corrections/) ----


/** One signer of one envelope (a signer of another envelope, or organization, is as unknown as a made-up id). */
export function getEnvelopeSigner(db: ShardDb, envelopeId: string, signerId: string): Promise<SignerRow | null> {
  return db.prepare("SELECT * FROM signers WHERE id = ? AND envelope_id = ?").bind(signerId, envelopeId).first<SignerRow>();
}

/**
 * A re-sent invitation: the signer's link re-issued (`slugHash`, the old slug dies) and `last_resent_at`,
 * guarded on the signer still open and the last re-send not after `notAfter` (one per 10 minutes).
 */
export function signerResendUpdate(db: ShardDb, signerId: string, input: { slugHash: string; at: string; notAfter: string }): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE signers SET slug_hash = ?1, last_resent_at = ?2
       WHERE id = ?3 AND status NOT IN ('completed', 'declined') AND (last_resent_at IS NULL OR last_resent_at <= ?4)`,
    )
    .bind(input.slugHash, input.at, signerId, input.notAfter);
}

/**
 * A correction: the signer's name, email and phone, a new link (`slugHash`) and `last_resent_at`,
 * guarded on the signer still open; E-SIGN consent starts over (docs/consumer-signing.md), as KBA does. The status stays (`viewed` records that the link was opened).
 */
export function signerCorrectionUpdate(
  db: ShardDb,
  signerId: string,
  input: Pick<SignerRow, "name" | "email" | "phone"> & { slugHash: string; at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE signers SET name = ?1, email = ?2, phone = ?3, slug_hash = ?4, last_resent_at = ?5, consent_given_at = NULL
       WHERE id = ?6 AND status NOT IN ('completed', 'declined')`,
    )
    .bind(input.name, input.email, input.phone, input.slugHash, input.at, signerId);
}

/**
 * A reminder or expiry warning re-issues the signer's link (jobs/send-reminders.ts): `slugHash` replaces
 * the stored one, so the newest email's link is the one that works. Only for a signer still to finish,
 * and only while `guard` (a condition on the envelope, from `reminderMarkCondition`) holds; for a
 * once-per-signer kind (`onceKind`), not when that email was already queued for them.
 */
export function signerReminderLinkUpdate(
  db: ShardDb,
  input: { signerId: string; slugHash: string; guard: { sql: string; binds: (string | number | null)[] }; onceKind: string | null },
): D1PreparedStatement {
  // SQL exception: the link changes only in the batch that queues the email carrying it, under that batch's guard on the envelope.
  return db
    .prepare(
      `UPDATE signers SET slug_hash = ? WHERE id = ? AND status NOT IN ('completed', 'declined') AND EXISTS (${input.guard.sql})
         AND NOT EXISTS (SELECT 1 FROM email_outbox WHERE signer_id = ? AND kind = ?)`,
    )
    .bind(input.slugHash, input.signerId, ...input.guard.binds, input.signerId, input.onceKind ?? "");
}
