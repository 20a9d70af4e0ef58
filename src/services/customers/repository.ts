import type { Row } from "../../db/row";
import type { customers } from "../../db/schema/customers";
import type { ShardDb } from "../../lib/shards";

/** Statements on `customers`. */

export type CustomerRow = Row<typeof customers>;

/** The organization's customer with this normalized email, or null. */
export function findCustomerIdByEmail(db: D1Database, orgId: string, emailNormalized: string): Promise<Pick<CustomerRow, "id"> | null> {
  return db.prepare("SELECT id FROM customers WHERE org_id = ? AND email_normalized = ?").bind(orgId, emailNormalized).first<Pick<CustomerRow, "id">>();
}

export function customerInsert(
  db: D1Database,
  c: Pick<CustomerRow, "id" | "org_id" | "name" | "email" | "email_normalized" | "primary_contact_name"> & { at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO customers (id, org_id, name, email, email_normalized, primary_contact_name, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(c.id, c.org_id, c.name, c.email, c.email_normalized, c.primary_contact_name, c.at, c.at);
}

// ---- appended by bulk send (helper B) ----

export type CustomerContact = Pick<CustomerRow, "id" | "name" | "email" | "primary_contact_name">;

/**
 * The organization's customers among `ids`, in one statement: the ids travel as one JSON array
 * (json_each), so a list of 1,000 is neither 1,000 bound values (D1 binds at most 100) nor a dozen
 * chunked queries counted against the invocation's statement budget.
 */
export async function listCustomerContactsByIds(db: D1Database, orgId: string, ids: string[]): Promise<CustomerContact[]> {
  const { results } = await db
    .prepare("SELECT id, name, email, primary_contact_name FROM customers WHERE org_id = ? AND id IN (SELECT value FROM json_each(?))")
    .bind(orgId, JSON.stringify(ids))
    .all<CustomerContact>();
  return results;
}

/** A customer's name, email and primary contact, or null. */
export function getCustomerContact(db: D1Database, customerId: string): Promise<Omit<CustomerContact, "id"> | null> {
  return db.prepare("SELECT name, email, primary_contact_name FROM customers WHERE id = ?").bind(customerId).first<Omit<CustomerContact, "id">>();
}

/** The customer insert of an envelope create: idempotent on (org, email), so concurrent creates share one customer. */
export function customerInsertIfAbsent(
  db: D1Database,
  c: Pick<CustomerRow, "id" | "org_id" | "name" | "email" | "email_normalized"> & { at: string },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO customers (id, org_id, name, email, email_normalized, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (org_id, email_normalized) DO NOTHING`,
    )
    .bind(c.id, c.org_id, c.name, c.email, c.email_normalized, c.at, c.at);
}

// ---- one customer on every shard of its organization (docs/decisions/shards.md 2) ----

/** The organization's customer with this normalized email on one shard, the whole row (to copy it to another shard), or null. */
export function findCustomerByEmail(db: ShardDb, orgId: string, emailNormalized: string): Promise<CustomerRow | null> {
  return db.prepare("SELECT * FROM customers WHERE org_id = ? AND email_normalized = ?").bind(orgId, emailNormalized).first<CustomerRow>();
}

// ---- customers copied across an organization's shards (bulk set-items, a create: docs/decisions/shards.md 2) ----

/** A customer row as another shard of the organization holds it, to be copied with its id. */
export type CustomerCopy = Pick<Row<typeof customers>, "id" | "org_id" | "name" | "email" | "email_normalized" | "primary_contact_name" | "created_at" | "updated_at">;

/** The organization's customers among `ids` (one JSON array) on this shard, whole rows. */
export async function listCustomerRowsByIds(db: ShardDb, orgId: string, ids: string[]): Promise<CustomerCopy[]> {
  const { results } = await db
    .prepare("SELECT id, org_id, name, email, email_normalized, primary_contact_name, created_at, updated_at FROM customers WHERE org_id = ? AND id IN (SELECT value FROM json_each(?))")
    .bind(orgId, JSON.stringify(ids))
    .all<CustomerCopy>();
  return results;
}

/** The organization's customers on this shard whose normalized email is among `emails`, by that email. */
export async function listCustomersByEmails(db: ShardDb, orgId: string, emails: string[]): Promise<Map<string, { id: string; name: string; email: string | null; primary_contact_name: string | null }>> {
  if (emails.length === 0) return new Map();
  const { results } = await db
    .prepare("SELECT id, name, email, email_normalized, primary_contact_name FROM customers WHERE org_id = ? AND email_normalized IN (SELECT value FROM json_each(?))")
    .bind(orgId, JSON.stringify(emails))
    .all<CustomerCopy>();
  return new Map(results.map((c) => [c.email_normalized!, { id: c.id, name: c.name, email: c.email, primary_contact_name: c.primary_contact_name }]));
}

/**
 * Copies of customers from the organization's other shards, with their ids (docs/decisions/shards.md 2),
 * in one statement (one JSON array), in the batch that first references them here. A copy is ignored
 * when the shard has it already (by id, or by (org, email): a concurrent create on this shard that made
 * its own is what the batch then uses).
 */
export function customerCopiesInsert(db: ShardDb, rows: CustomerCopy[]): D1PreparedStatement {
  return db
    .prepare(
      `INSERT OR IGNORE INTO customers (id, org_id, name, email, email_normalized, primary_contact_name, created_at, updated_at)
       SELECT json_extract(value, '$.id'), json_extract(value, '$.org_id'), json_extract(value, '$.name'), json_extract(value, '$.email'),
              json_extract(value, '$.email_normalized'), json_extract(value, '$.primary_contact_name'), json_extract(value, '$.created_at'), json_extract(value, '$.updated_at')
       FROM json_each(?)`,
    )
    .bind(JSON.stringify(rows));
}
