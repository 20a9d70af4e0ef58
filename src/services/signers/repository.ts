import type { SIGNER_STATUSES } from "./schema";

export type SignerStatus = (typeof SIGNER_STATUSES)[number];

export type SignerRow = {
  id: string;
  envelope_id: string;
  org_id: string;
  role: string;
  email: string;
  name: string;
  routing_order: number;
  status: SignerStatus;
  /** "sha256:" + hex of the permanent slug (services/signers/slug.ts); never the slug itself */
  slug_hash: string;
  viewed_at: string | null;
  signed_at: string | null;
  created_at: string;
};

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
