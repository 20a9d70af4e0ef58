import type { GlobalDb } from "../../lib/shards";
import type { Locale } from "../../db/schema/locales";
import type { Row } from "../../db/row";
import type { memberships, organizations, users } from "../../db/schema/organizations";

/** Statements on `organizations`, `users` and `memberships`. */

export type OrganizationRow = Row<typeof organizations>;
export type UserRow = Row<typeof users>;
export type MembershipRow = Row<typeof memberships>;

// ---- organizations ----

/** Whether the organization exists (`{ ok: 1 }`), or null. */
export function findOrganization(db: GlobalDb, orgId: string): Promise<Record<string, unknown> | null> {
  return db.prepare("SELECT 1 AS ok FROM organizations WHERE id = ?").bind(orgId).first();
}

/** The organization's id, for a batch that reads it beside other things (no row: no such organization). */
export function selectOrganizationId(db: GlobalDb, orgId: string): D1PreparedStatement {
  return db.prepare("SELECT id FROM organizations WHERE id = ?").bind(orgId);
}

/** The organization's name, for a batch (one row `{ name }`, none for an unknown organization). */
export function selectOrganizationName(db: GlobalDb, orgId: string): D1PreparedStatement {
  return db.prepare("SELECT name FROM organizations WHERE id = ?").bind(orgId);
}

export function getOrganizationName(db: GlobalDb, orgId: string): Promise<Pick<OrganizationRow, "name"> | null> {
  return selectOrganizationName(db, orgId).first<Pick<OrganizationRow, "name">>();
}

export type OrganizationSettingsRow = Pick<
  OrganizationRow,
  "id" | "name" | "stripe_account_id" | "platform_fee_bps" | "embed_frame_ancestors" | "reminder_after_days" | "reminder_every_days" | "current_shard_id" | "created_at" | "updated_at"
>;

/** What the operator sees of an organization. */
export function getOrganizationSettings(db: GlobalDb, orgId: string): Promise<OrganizationSettingsRow | null> {
  return db
    .prepare("SELECT id, name, stripe_account_id, platform_fee_bps, embed_frame_ancestors, reminder_after_days, reminder_every_days, current_shard_id, created_at, updated_at FROM organizations WHERE id = ?")
    .bind(orgId)
    .first<OrganizationSettingsRow>();
}

/** What a payment request needs of its organization: the connected account and the platform fee. */
export function getOrganizationPaymentSettings(db: GlobalDb, orgId: string): Promise<Pick<OrganizationRow, "stripe_account_id" | "platform_fee_bps"> | null> {
  return db
    .prepare("SELECT stripe_account_id, platform_fee_bps FROM organizations WHERE id = ?")
    .bind(orgId)
    .first<Pick<OrganizationRow, "stripe_account_id" | "platform_fee_bps">>();
}

export function getOrganizationEmbedSettings(db: GlobalDb, orgId: string): Promise<Pick<OrganizationRow, "embed_frame_ancestors" | "updated_at"> | null> {
  return db
    .prepare("SELECT embed_frame_ancestors, updated_at FROM organizations WHERE id = ?")
    .bind(orgId)
    .first<Pick<OrganizationRow, "embed_frame_ancestors" | "updated_at">>();
}

/** What the pages' HTML needs of an organization: the origins allowed to frame them and its default language. */
export function getPageSettingsOfOrg(db: GlobalDb, orgId: string): Promise<{ origins: string | null; default_locale: Locale } | null> {
  return db
    .prepare("SELECT embed_frame_ancestors AS origins, default_locale FROM organizations WHERE id = ?")
    .bind(orgId)
    .first<{ origins: string | null; default_locale: Locale }>();
}

export function organizationInsert(db: GlobalDb, org: { id: string; name: string; shard: number; at: string }): D1PreparedStatement {
  return db
    .prepare("INSERT INTO organizations (id, name, current_shard_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
    .bind(org.id, org.name, org.shard, org.at, org.at);
}

/** Moves the organization's current shard (guarded on the one read, so two racing moves cannot both record). */
export function organizationShardUpdate(db: GlobalDb, orgId: string, move: { from: number; to: number; at: string }): D1PreparedStatement {
  return db
    .prepare("UPDATE organizations SET current_shard_id = ?, updated_at = ? WHERE id = ? AND current_shard_id = ?")
    .bind(move.to, move.at, orgId, move.from);
}

/** Organizations in creation order, after `after` (an org id; keyset over the rowid), for the operator's list. */
export async function listOrganizations(db: GlobalDb, page: { after: string | null; limit: number }): Promise<Pick<OrganizationRow, "id" | "name" | "current_shard_id" | "created_at">[]> {
  const { results } = await db
    .prepare(
      `SELECT id, name, current_shard_id, created_at FROM organizations
       WHERE ?1 IS NULL OR rowid > (SELECT rowid FROM organizations WHERE id = ?1)
       ORDER BY rowid LIMIT ?2`,
    )
    .bind(page.after, page.limit)
    .all<Pick<OrganizationRow, "id" | "name" | "current_shard_id" | "created_at">>();
  return results;
}

/** Columns the operator may change on an organization (the keys are trusted names, never request input). */
export type OrganizationChanges = Partial<
  Pick<OrganizationRow, "name" | "stripe_account_id" | "platform_fee_bps" | "embed_frame_ancestors" | "reminder_after_days" | "reminder_every_days">
>;

/** The UPDATE of the given columns (and `updated_at`). */
export function organizationUpdate(db: GlobalDb, orgId: string, changes: OrganizationChanges, at: string): D1PreparedStatement {
  const columns = Object.keys(changes) as (keyof OrganizationChanges)[];
  return db
    .prepare(`UPDATE organizations SET updated_at = ?${columns.map((c) => `, ${c} = ?`).join("")} WHERE id = ?`)
    .bind(at, ...columns.map((c) => changes[c] ?? null), orgId);
}

/** Stores the organization's frame-ancestors list (JSON text, or NULL for none). */
export function frameAncestorsUpdate(db: GlobalDb, orgId: string, stored: string | null, at: string): D1PreparedStatement {
  return db.prepare("UPDATE organizations SET embed_frame_ancestors = ?, updated_at = ? WHERE id = ?").bind(stored, at, orgId);
}

// ---- retention of closed vault records (docs/control.md "Retention") ----

export type RetentionPolicyRow = Pick<OrganizationRow, "id" | "retain_years_after_close" | "auto_destroy" | "retention_updated_at">;

/** The retention policies of `orgIds` (one read, `json_each`): the closing controller's at close, the controllers' in the cron. */
export async function listRetentionPolicies(db: GlobalDb, orgIds: string[]): Promise<RetentionPolicyRow[]> {
  if (orgIds.length === 0) return [];
  const { results } = await db
    .prepare("SELECT id, retain_years_after_close, auto_destroy, retention_updated_at FROM organizations WHERE id IN (SELECT value FROM json_each(?))")
    .bind(JSON.stringify([...new Set(orgIds)]))
    .all<RetentionPolicyRow>();
  return results;
}

/** The organizations whose policy destroys their records automatically (the destruction cron's filter). */
export async function listAutoDestroyOrgIds(db: GlobalDb): Promise<string[]> {
  const { results } = await db.prepare("SELECT id FROM organizations WHERE auto_destroy = 1").all<Pick<OrganizationRow, "id">>();
  return results.map((r) => r.id);
}

export function retentionPolicyUpdate(db: GlobalDb, orgId: string, policy: { retainYearsAfterClose: number; autoDestroy: boolean }, at: string): D1PreparedStatement {
  return db
    .prepare("UPDATE organizations SET retain_years_after_close = ?, auto_destroy = ?, retention_updated_at = ?, updated_at = ? WHERE id = ?")
    .bind(policy.retainYearsAfterClose, policy.autoDestroy ? 1 : 0, at, at, orgId);
}

// ---- users ----

export function findUserIdByEmail(db: GlobalDb, email: string): Promise<Pick<UserRow, "id"> | null> {
  return db.prepare("SELECT id FROM users WHERE email = ?").bind(email).first<Pick<UserRow, "id">>();
}

/** The user's row id, or null when there is no such user. */
export function findUser(db: GlobalDb, userId: string): Promise<Record<string, unknown> | null> {
  return db.prepare("SELECT id FROM users WHERE id = ?").bind(userId).first();
}

/** The user's email, lower-cased, or null when there is no such user. */
export async function getUserEmailLower(db: GlobalDb, userId: string): Promise<string | null> {
  const row = await db.prepare("SELECT lower(email) AS email FROM users WHERE id = ?").bind(userId).first<{ email: string }>();
  return row?.email ?? null;
}

/** Adds a user; a user with this email already there is kept as is. */
export function userInsert(db: GlobalDb, user: { id: string; email: string; name: string; at: string }): D1PreparedStatement {
  return db.prepare("INSERT INTO users (id, email, name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (email) DO NOTHING").bind(user.id, user.email, user.name, user.at);
}

// ---- memberships ----

/** Makes the user with this email a member with `role` (the role of an existing membership is replaced). */
export function membershipUpsert(db: GlobalDb, m: { email: string; orgId: string; role: MembershipRow["role"]; at: string }): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO memberships (user_id, org_id, role, created_at) VALUES ((SELECT id FROM users WHERE email = ?), ?, ?, ?)
       ON CONFLICT (user_id, org_id) DO UPDATE SET role = excluded.role`,
    )
    .bind(m.email, m.orgId, m.role, m.at);
}

export function findMembership(db: GlobalDb, userId: string, orgId: string): Promise<Record<string, unknown> | null> {
  return db.prepare("SELECT 1 AS ok FROM memberships WHERE user_id = ? AND org_id = ?").bind(userId, orgId).first();
}

/** The member's role and the organization's current shard (where the console's creates go), in one read. */
export function getMembershipRole(db: GlobalDb, userId: string, orgId: string): Promise<(Pick<MembershipRow, "role"> & { current_shard_id: number }) | null> {
  return db
    .prepare("SELECT m.role, o.current_shard_id FROM memberships m JOIN organizations o ON o.id = m.org_id WHERE m.user_id = ? AND m.org_id = ?")
    .bind(userId, orgId)
    .first<Pick<MembershipRow, "role"> & { current_shard_id: number }>();
}

// ---- appended by bulk send (helper B) ----

/** The user's email, trimmed and lower-cased, or null when there is no such user. */
export function getUserEmailNormalized(db: GlobalDb, userId: string): Promise<{ email: string } | null> {
  return db.prepare("SELECT lower(trim(email)) AS email FROM users WHERE id = ?").bind(userId).first<{ email: string }>();
}

/** For a batch: the user's email and name (one row, none for an unknown user). */
export function selectUserContact(db: GlobalDb, userId: string): D1PreparedStatement {
  return db.prepare("SELECT email, name FROM users WHERE id = ?").bind(userId);
}

/** The names of the organizations among `orgIds` (one JSON array): the parties of a page of vault records. */
export async function listOrganizationNames(db: GlobalDb, orgIds: string[]): Promise<Pick<OrganizationRow, "id" | "name">[]> {
  if (orgIds.length === 0) return [];
  const { results } = await selectOrganizationNamesOf(db, orgIds).all<Pick<OrganizationRow, "id" | "name">>();
  return results;
}

/** listOrganizationNames's statement, for a batch. */
export function selectOrganizationNamesOf(db: GlobalDb, orgIds: string[]): D1PreparedStatement {
  return db.prepare("SELECT id, name FROM organizations WHERE id IN (SELECT value FROM json_each(?))").bind(JSON.stringify(orgIds));
}

/** The language of the organization's envelopes that name none (`en` for an unknown organization). */
export async function findOrgDefaultLocale(db: GlobalDb, orgId: string): Promise<Locale> {
  const row = await db.prepare("SELECT default_locale FROM organizations WHERE id = ?").bind(orgId).first<{ default_locale: Locale }>();
  return row?.default_locale ?? "en";
}

export function getOrganizationLocaleSettings(db: GlobalDb, orgId: string): Promise<Pick<OrganizationRow, "default_locale" | "updated_at"> | null> {
  return db.prepare("SELECT default_locale, updated_at FROM organizations WHERE id = ?").bind(orgId).first<Pick<OrganizationRow, "default_locale" | "updated_at">>();
}

export function defaultLocaleUpdate(db: GlobalDb, orgId: string, locale: Locale, at: string): D1PreparedStatement {
  return db.prepare("UPDATE organizations SET default_locale = ?, updated_at = ? WHERE id = ?").bind(locale, at, orgId);
}
