import type { Row } from "../../db/row";
import type { signers } from "../../db/schema";
import type { SIGNER_STATUSES } from "./schema";

export type SignerStatus = (typeof SIGNER_STATUSES)[number];

/** A signer row as D1 returns it; `slug_hash` is "sha256:" + hex of the permanent slug (./slug.ts), never the slug. */
export type SignerRow = Row<typeof signers>;

/** The envelope's signers in signing order; within one order, in the order the sender listed them. */
export function selectSigners(db: D1Database, envelopeId: string): D1PreparedStatement {
  return db.prepare("SELECT * FROM signers WHERE envelope_id = ? ORDER BY routing_order, rowid").bind(envelopeId);
}

export async function listSigners(db: D1Database, envelopeId: string): Promise<SignerRow[]> {
  return (await selectSigners(db, envelopeId).all<SignerRow>()).results;
}

export function insertSigner(db: D1Database, s: SignerRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO signers (id, envelope_id, org_id, role, email, name, routing_order, status, slug_hash, viewed_at, signed_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(s.id, s.envelope_id, s.org_id, s.role, s.email, s.name, s.routing_order, s.status, s.slug_hash, s.viewed_at, s.signed_at, s.created_at);
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
export function findSignerForPayment(db: D1Database, signerId: string): Promise<Pick<SignerRow, "id" | "envelope_id" | "org_id" | "email" | "status"> | null> {
  return db
    .prepare("SELECT id, envelope_id, org_id, email, status FROM signers WHERE id = ?")
    .bind(signerId)
    .first<Pick<SignerRow, "id" | "envelope_id" | "org_id" | "email" | "status">>();
}

/**
 * Stores the hash of the slug a signer's invitation carries, unless the signer was already invited
 * (their link must keep working): goes right before the invitation's outbox INSERT
 * (email/invitation.ts).
 */
export function signerInvitationLinkUpdate(db: D1Database, signerId: string, slugHash: string): D1PreparedStatement {
  return db
    .prepare("UPDATE signers SET slug_hash = ?1 WHERE id = ?2 AND NOT EXISTS (SELECT 1 FROM email_outbox WHERE signer_id = ?2 AND kind = 'invitation')")
    .bind(slugHash, signerId);
}

/** The signer has signed: a repeat or a declined signer changes nothing. */
export function signerCompletedStatement(db: D1Database, signerId: string, at: string): D1PreparedStatement {
  return db
    .prepare("UPDATE signers SET status = 'completed', signed_at = ?, viewed_at = COALESCE(viewed_at, ?) WHERE id = ? AND status NOT IN ('completed', 'declined')")
    .bind(at, at, signerId);
}

/** One signer by id, whatever the organization (the credential that named it was already checked). */
export function getSigner(db: D1Database, signerId: string): Promise<SignerRow | null> {
  return db.prepare("SELECT * FROM signers WHERE id = ?").bind(signerId).first<SignerRow>();
}

// ---- appended by helper E: signing verbs and credentials ----

/** The signer's first open: `viewed_at`, and `pending` -> `viewed` (signing/view-signing.ts). */
export function signerViewedUpdate(db: D1Database, signerId: string, at: string): D1PreparedStatement {
  return db
    .prepare("UPDATE signers SET viewed_at = ?, status = CASE WHEN status = 'pending' THEN 'viewed' ELSE status END WHERE id = ? AND viewed_at IS NULL")
    .bind(at, signerId);
}

/** The signer declines, unless already signed (signing/decline-signing.ts). */
export function signerDeclinedUpdate(db: D1Database, signerId: string): D1PreparedStatement {
  return db.prepare("UPDATE signers SET status = 'declined' WHERE id = ? AND status <> 'completed'").bind(signerId);
}

/**
 * The signer whose slug hash is `hash`, or whose row still holds the raw slug `raw` (never a value
 * already in the hashed form, prefixed `hashedPrefix`): signers/resolve-credential.ts.
 */
export function findSignerBySlug(db: D1Database, hash: string, raw: string, hashedPrefix: string): Promise<{ id: string; slug_hash: string } | null> {
  return db
    .prepare(`SELECT id, slug_hash FROM signers WHERE slug_hash = ?1 OR (slug_hash = ?2 AND slug_hash NOT LIKE '${hashedPrefix}%')`)
    .bind(hash, raw)
    .first<{ id: string; slug_hash: string }>();
}

/** Rewrites a raw slug as its hash, guarded on the raw value so two first uses race harmlessly. */
export async function rehashSignerSlug(db: D1Database, signerId: string, raw: string, hash: string): Promise<void> {
  await db.prepare("UPDATE signers SET slug_hash = ? WHERE id = ? AND slug_hash = ?").bind(hash, signerId, raw).run();
}
