import type { Locale } from "../../db/schema/locales";
import type { Row } from "../../db/row";
import type { envelopeCcRecipients, envelopes, SecuredParty } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { GENESIS_HASH, type ChainHead } from "../audit/chain";

/** An envelope row as D1 returns it, plus the head of its audit chain read in the same statement. */
export type EnvelopeRow = Row<typeof envelopes>;

/**
 * `vault_id`: the envelope's vault record (`vlt_…`), null until vaulted; `cc_json`: its cc recipients
 * (a JSON array of `{ name, email, position }`, `ccOf`). Both read in the same statement; absent on a
 * row not read that way.
 */
export type LoadedEnvelope = EnvelopeRow & { head: ChainHead; vault_id?: string | null; cc_json?: string | null };

/**
 * One statement reads the envelope and its chain head together, so a transition built from them
 * sees a consistent pair. Anything outside the caller's organization is simply not found.
 */
export async function findEnvelope(db: D1Database, orgId: string, envelopeId: string): Promise<LoadedEnvelope | null> {
  return loadedEnvelopeOf(await selectLoadedEnvelope(db, orgId, envelopeId).first<LoadedEnvelopeRow>());
}

/** A row of selectLoadedEnvelope, as D1 returns it (in a batch too). */
export type LoadedEnvelopeRow = EnvelopeRow & { head_hash: string | null; vault_id?: string | null; cc_json?: string | null };

/** findEnvelope's statement, for a caller that reads the envelope back in the batch that wrote it. */
/** An envelope row with its audit chain head's hash (`head_hash`) and its vault record's id (`vault_id`), from `envelopes e`: loadedEnvelopeOf reads them. */
export const LOADED_ENVELOPE_COLUMNS =
  // SQL exception: the vault record's id rides along (vault_records_envelope_uq), so GET /partner/envelopes/:id names it in the same one statement.
  // So do its cc recipients (envelope_cc_recipients_envelope_idx), so every envelope read names them.
  "e.*, (SELECT hash FROM audit_log a WHERE a.chain_id = e.id AND a.seq = e.audit_seq) AS head_hash, (SELECT v.id FROM vault_records v WHERE v.envelope_id = e.id) AS vault_id, " +
  "(SELECT json_group_array(json_object('name', c.name, 'email', c.email, 'position', c.position)) FROM envelope_cc_recipients c WHERE c.envelope_id = e.id) AS cc_json";

export function selectLoadedEnvelope(db: D1Database, orgId: string, envelopeId: string): D1PreparedStatement {
  return db.prepare(`SELECT ${LOADED_ENVELOPE_COLUMNS} FROM envelopes e WHERE e.id = ? AND e.org_id = ?`).bind(envelopeId, orgId);
}

/**
 * selectLoadedEnvelope for the envelopes of many vault records at once (one JSON array of vault ids; the
 * caller checks each one's organization).
 * SQL exception: the envelopes are named by their vault records, so the batch reading the records reads
 * their envelopes too (control/state.ts readControlMany).
 */
export function selectLoadedEnvelopesOfRecords(db: D1Database, vaultIds: string[]): D1PreparedStatement {
  return db
    .prepare(`SELECT ${LOADED_ENVELOPE_COLUMNS} FROM envelopes e WHERE e.id IN (SELECT r.envelope_id FROM vault_records r WHERE r.id IN (SELECT value FROM json_each(?)))`)
    .bind(JSON.stringify(vaultIds));
}

/** The number of chain entries each envelope of `envelopeIds` records (`{ id, audit_seq }`): where its chain must end. */
export function selectChainLengthsOf(db: D1Database, envelopeIds: string[]): D1PreparedStatement {
  return db.prepare("SELECT id, audit_seq FROM envelopes WHERE id IN (SELECT value FROM json_each(?))").bind(JSON.stringify(envelopeIds));
}

export function loadedEnvelopeOf(row: LoadedEnvelopeRow | null | undefined): LoadedEnvelope | null {
  if (!row) return null;
  const { head_hash, ...envelope } = row;
  return { ...envelope, vault_id: envelope.vault_id ?? null, head: { seq: envelope.audit_seq, hash: head_hash ?? GENESIS_HASH } };
}

export async function getEnvelope(db: D1Database, orgId: string, envelopeId: string): Promise<LoadedEnvelope> {
  const envelope = await findEnvelope(db, orgId, envelopeId);
  if (!envelope) throw notFound("Envelope");
  return envelope;
}

export function securedPartyOf(row: EnvelopeRow): SecuredParty | null {
  return row.secured_party ? (JSON.parse(row.secured_party) as SecuredParty) : null;
}

export function metadataOf(row: EnvelopeRow): Record<string, unknown> {
  return JSON.parse(row.metadata) as Record<string, unknown>;
}

/** Columns a change may set with its chain advance (names are interpolated: only these). */
export const CHANGE_SETTABLE = ["voided_reason", "signed_at", "expires_at", "vaulted_at", "certificate_issued_at", "secured_party"] as const;
export type ChangeSettable = (typeof CHANGE_SETTABLE)[number];

/**
 * The guarded write every envelope change begins its batch with: the audit sequence advanced by the
 * change's `entries` (it must still be the value read: the optimistic lock), `updated_at`, and, for a
 * state-machine move, the new status (guarded on the status read) and the columns the move sets.
 * Its `changes` is 1 exactly when nothing else changed the envelope since it was read.
 */
export function advanceChainStatement(
  db: D1Database,
  envelope: Pick<EnvelopeRow, "id" | "org_id" | "status" | "audit_seq">,
  input: { entries: number; at: string; status?: EnvelopeRow["status"]; set?: Partial<Record<ChangeSettable, string | number | null>> },
): D1PreparedStatement {
  const set = input.set ?? {};
  const columns = CHANGE_SETTABLE.filter((c) => c in set);
  const moves = input.status !== undefined;
  return db
    .prepare(
      `UPDATE envelopes SET audit_seq = audit_seq + ?, updated_at = ?${moves ? ", status = ?" : ""}${columns.map((c) => `, ${c} = ?`).join("")}
       WHERE id = ? AND org_id = ? AND audit_seq = ?${moves ? " AND status = ?" : ""}`,
    )
    .bind(
      input.entries,
      input.at,
      ...(moves ? [input.status] : []),
      ...columns.map((c) => set[c] ?? null),
      envelope.id,
      envelope.org_id,
      envelope.audit_seq,
      ...(moves ? [envelope.status] : []),
    );
}

// ---- for the vault (services/vault: integrity checks, downloads) ----

/** The envelope row alone (no chain head), for a caller that batches its reads (the integrity checks). */
export function selectEnvelopeRow(db: D1Database, orgId: string, envelopeId: string): D1PreparedStatement {
  return db.prepare("SELECT * FROM envelopes WHERE id = ? AND org_id = ?").bind(envelopeId, orgId);
}

/** Sets the envelope's `certificate_issued_at` (its `compliant` flag) as a re-issued certificate says. */
export function envelopeCertificateIssuedAtUpdate(db: D1Database, envelopeId: string, certificateIssuedAt: string | null): D1PreparedStatement {
  return db.prepare("UPDATE envelopes SET certificate_issued_at = ? WHERE id = ?").bind(certificateIssuedAt, envelopeId);
}

/** An envelope's id and name, whatever its organization (a signed download URL names the vault record only). */
export function findEnvelopeName(db: D1Database, envelopeId: string): Promise<Pick<EnvelopeRow, "id" | "name"> | null> {
  return db.prepare("SELECT id, name FROM envelopes WHERE id = ?").bind(envelopeId).first<Pick<EnvelopeRow, "id" | "name">>();
}

/** Internal metadata (never shown to partners): whether the send emailed its invitations, so later routing orders follow it. */
export function markSendEmailStatement(db: D1Database, envelopeId: string, sendEmail: boolean): D1PreparedStatement {
  return db.prepare("UPDATE envelopes SET metadata = json_set(metadata, '$.send_email', json(?)) WHERE id = ?").bind(String(sendEmail), envelopeId);
}

// ---- for bulk send (services/bulk: create-bulk-envelope.ts, run-chunk.ts, send-group.ts) ----

/**
 * The INSERT of a bulk-send envelope, `preparing` under its client, with `audit_seq` 1: its
 * `envelope.created` audit entry goes in the same batch. `consent` is the organization's E-SIGN consent
 * as read from the global database before the batch (compose/consent-at-create.ts `consentAtCreate`
 * with `requested: null`; one read serves a whole chunk).
 */
export function bulkEnvelopeInsert(
  db: D1Database,
  e: {
    id: string; orgId: string; customerId: string; name: string; documentSource: string; templateId: string; metadata: string; kbaRequired: number;
    providerInstance: string; consent: EnvelopeConsent; at: string;
  },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO envelopes (id, org_id, customer_id, name, status, document_source, template_id, metadata, prefilled_data, kba_required, provider_instance,
         consumer_consent, disclosure_id, locale, audit_seq, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'preparing', ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
    )
    .bind(
      e.id, e.orgId, e.customerId, e.name, e.documentSource, e.templateId, e.metadata, null, e.kbaRequired, e.providerInstance,
      e.consent.consumerConsent, e.consent.disclosureId, e.consent.locale, e.at, e.at,
    );
}

/** An envelope's status, whatever its organization, or null when there is no such envelope. */
export function findEnvelopeStatus(db: D1Database, envelopeId: string): Promise<Pick<EnvelopeRow, "status"> | null> {
  return db.prepare("SELECT status FROM envelopes WHERE id = ?").bind(envelopeId).first<Pick<EnvelopeRow, "status">>();
}

/** For a batch: the organization's envelopes among `envelopeIds` (one JSON array), rows of LoadedEnvelopeRow. */
export function selectLoadedEnvelopes(db: D1Database, orgId: string, envelopeIds: string): D1PreparedStatement {
  return db.prepare(`SELECT ${LOADED_ENVELOPE_COLUMNS} FROM envelopes e WHERE e.id IN (SELECT value FROM json_each(?1)) AND e.org_id = ?2`).bind(envelopeIds, orgId);
}

/** Binds a builder envelope to its working template: the template, the builder's metadata, its KBA choice and signing provider. */
export function bindTemplateStatement(
  db: D1Database,
  envelopeId: string,
  input: { templateId: string; metadata: Record<string, unknown>; kbaRequired: number; providerInstance: string },
): D1PreparedStatement {
  return db
    .prepare("UPDATE envelopes SET template_id = ?, metadata = ?, kba_required = ?, provider_instance = ? WHERE id = ?")
    .bind(input.templateId, JSON.stringify(input.metadata), input.kbaRequired, input.providerInstance, envelopeId);
}

// ---- appended by helper E: envelope reads of jobs and verbs, and the create INSERT ----

/** `sent`/`viewed` envelopes whose `expires_at` has passed, oldest deadline first (jobs/expire-envelopes.ts). */
export async function listExpiredEnvelopeIds(db: D1Database, now: string, limit: number): Promise<{ id: string; org_id: string }[]> {
  const { results } = await db
    .prepare(
      `SELECT id, org_id FROM envelopes WHERE status IN ('sent', 'viewed') AND expires_at IS NOT NULL AND expires_at <= ?
     ORDER BY expires_at LIMIT ?`,
    )
    .bind(now, limit)
    .all<{ id: string; org_id: string }>();
  return results;
}

/** Completed envelopes after `cursor` in id order, each with whether auto-vault is due for it (jobs/auto-vault-sweep.ts). */
export async function listCompletedEnvelopesForAutoVault(
  db: D1Database,
  input: { changedBefore: string; cursor: string; limit: number },
): Promise<{ id: string; due: number }[]> {
  const { results } = await db
    .prepare(
      // `status = 'completed'` verbatim so that the partial index applies; consent, paper and payment are
      // read per row through their own keys (vault_consents' primary key, payments' unique envelope_id).
      `SELECT e.id,
         (e.updated_at <= ? AND e.document_source != 'upload'
          AND EXISTS (SELECT 1 FROM vault_consents c WHERE c.envelope_id = e.id AND c.auto_vault_enabled = 1)
          AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.envelope_id = e.id AND p.status != 'paid')) AS due
       FROM envelopes e INDEXED BY envelopes_completed_idx
       WHERE e.status = 'completed' AND e.id > ?
       ORDER BY e.id LIMIT ?`,
    )
    .bind(input.changedBefore, input.cursor, input.limit)
    .all<{ id: string; due: number }>();
  return results;
}

/** The columns the status answer needs (serialize.ts envelopeStatus), and nothing else. */
export type EnvelopeStatusColumns = Pick<EnvelopeRow, "id" | "status" | "vaulted_at" | "certificate_issued_at" | "signed_at" | "updated_at">;
const STATUS_COLUMNS = "id, status, vaulted_at, certificate_issued_at, signed_at, updated_at";

/** The status columns of an envelope with its org_id, whatever the organization. */
export function findEnvelopeStatusColumnsUnscoped(db: D1Database, envelopeId: string): Promise<(EnvelopeStatusColumns & { org_id: string }) | null> {
  return db.prepare(`SELECT ${STATUS_COLUMNS}, org_id FROM envelopes WHERE id = ?`).bind(envelopeId).first<EnvelopeStatusColumns & { org_id: string }>();
}

/** The status columns of the organization's envelope. */
export function findEnvelopeStatusColumns(db: D1Database, orgId: string, envelopeId: string): Promise<EnvelopeStatusColumns | null> {
  return db.prepare(`SELECT ${STATUS_COLUMNS} FROM envelopes WHERE id = ? AND org_id = ?`).bind(envelopeId, orgId).first<EnvelopeStatusColumns>();
}

/** A page of the organization's envelopes, newest first, and the count of all matching: one batch of two statements. */
export async function listEnvelopesPage(
  db: D1Database,
  input: { orgId: string; customerId?: string; status?: string; limit: number; offset: number },
): Promise<{ rows: EnvelopeRow[]; total: number }> {
  const where = ["org_id = ?"];
  const params: (string | number)[] = [input.orgId];
  if (input.customerId) {
    where.push("customer_id = ?");
    params.push(input.customerId);
  }
  if (input.status) {
    where.push("status = ?");
    params.push(input.status);
  }
  const clause = where.join(" AND ");
  const [rows, count] = await db.batch<EnvelopeRow | { total: number }>([
    db.prepare(`SELECT * FROM envelopes WHERE ${clause} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`).bind(...params, input.limit, input.offset),
    db.prepare(`SELECT COUNT(*) AS total FROM envelopes WHERE ${clause}`).bind(...params),
  ]);
  return {
    rows: (rows?.results ?? []) as EnvelopeRow[],
    total: (count?.results[0] as { total: number } | undefined)?.total ?? 0,
  };
}

/**
 * The `pending` envelope of a create (compose/create-envelope.ts), its customer_id resolved in SQL from
 * the customer insert (or copy) placed before it in the same batch, its E-SIGN consent as decided.
 */
export function createdEnvelopeInsert(
  db: D1Database,
  e: {
    id: string; orgId: string; emailNormalized: string; name: string; documentSource: string; externalId: string | null;
    templateId: string | null; metadata: string; prefilledData: string | null; securedParty: string | null; kbaRequired: number;
    providerInstance: string; expiresInDays: number; createdByKeyId: string | null; consent: EnvelopeConsent; at: string;
  },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO envelopes (id, org_id, customer_id, name, status, document_source, external_id, template_id, metadata,
         prefilled_data, secured_party, kba_required, provider_instance, expires_in_days, created_by_key_id, consumer_consent, disclosure_id,
         locale, audit_seq, created_at, updated_at)
       VALUES (?, ?, (SELECT id FROM customers WHERE org_id = ? AND email_normalized = ?), ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
    )
    .bind(
      e.id, e.orgId, e.orgId, e.emailNormalized, e.name, e.documentSource, e.externalId, e.templateId, e.metadata,
      e.prefilledData, e.securedParty, e.kbaRequired, e.providerInstance, e.expiresInDays, e.createdByKeyId,
      e.consent.consumerConsent, e.consent.disclosureId, e.consent.locale, e.at, e.at,
    );
}

/**
 * An envelope's E-SIGN consent at create (docs/consumer-signing.md): whether it applies, and the organization's
 * disclosure version it pins when it does (so a later save never changes what its signers are shown).
 * Read from the global database before the create's batch (compose/consent-at-create.ts), passed as values,
 * with the envelope's locale (the disclosure pinned is the one of that locale).
 */
export type EnvelopeConsent = { consumerConsent: 0 | 1; disclosureId: string | null; locale: Locale };

// ---- reminders and expiry warnings (docs/consumer-signing.md; jobs/send-reminders.ts) ----

/** The reminder schedule a create asks for (compose/create-envelope.ts): null falls back to the organization's default. */
export function envelopeReminderSettingsUpdate(db: D1Database, envelopeId: string, s: { afterDays: number | null; everyDays: number | null }): D1PreparedStatement {
  return db.prepare("UPDATE envelopes SET reminder_after_days = ?, reminder_every_days = ? WHERE id = ?").bind(s.afterDays, s.everyDays, envelopeId);
}

/**
 * An open envelope with a reminder or an expiry warning due at `now`: its reminder columns as read
 * (the guard of everything the run writes for it), the schedule in force (the envelope's own, else the
 * organization's; `every_days` 0: once) and the organization's name.
 */
export type ReminderDueRow = Pick<
  EnvelopeRow,
  "id" | "org_id" | "name" | "kba_required" | "metadata" | "expires_at" | "reminders_sent" | "last_reminder_at" | "expiry_warned_at" | "locale"
> & { org_name: string; after_days: number | null; every_days: number; reminder_due: 0 | 1; warning_due: 0 | 1 };

/**
 * Open (`sent`/`viewed`, not past `expires_at`) envelopes with something due at `now`, the most
 * overdue first. The envelope was sent `expires_in_days` before its `expires_at` (send-envelope.ts
 * sets it so): the first reminder is due `after_days` after that, the next `every_days` after the last
 * one (never when 0); the expiry warning 2 days before `expires_at`, once, for an envelope open longer
 * than 2 days. The organizations' defaults are global rows (docs/decisions/shards.md 3): the caller
 * reads them first and passes those of the organizations that set any as `orgDefaults`, one JSON array
 * of `{ id, after, every }` (jobs/send-reminders.ts); `org_name` is left '' for the caller to fill.
 */
export async function listEnvelopesDueForReminders(
  db: D1Database,
  now: string,
  limit: number,
  orgDefaults: { id: string; after: number | null; every: number | null }[] = [],
): Promise<ReminderDueRow[]> {
  const { results } = await db
    .prepare(
      `SELECT * FROM (
         SELECT id, org_id, name, kba_required, metadata, expires_at, reminders_sent, last_reminder_at, expiry_warned_at, locale, org_name, after_days, every_days,
                CASE WHEN after_days IS NOT NULL AND (
                       (reminders_sent = 0 AND julianday(?1) >= julianday(expires_at) - expires_in_days + after_days)
                    OR (reminders_sent > 0 AND every_days > 0 AND julianday(?1) >= julianday(last_reminder_at) + every_days)
                     ) THEN 1 ELSE 0 END AS reminder_due,
                CASE WHEN expiry_warned_at IS NULL AND expires_in_days > 2 AND julianday(?1) >= julianday(expires_at) - 2 THEN 1 ELSE 0 END AS warning_due
         FROM (SELECT e.*, '' AS org_name, COALESCE(e.reminder_after_days, o.after) AS after_days,
                      COALESCE(e.reminder_every_days, o.every, 0) AS every_days
               FROM envelopes e
               LEFT JOIN (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.after') AS after, json_extract(value, '$.every') AS every
                          FROM json_each(?3)) o ON o.id = e.org_id
               WHERE e.status IN ('sent', 'viewed') AND e.expires_at IS NOT NULL AND e.expires_at > ?1)
       ) WHERE reminder_due = 1 OR warning_due = 1
       ORDER BY expires_at LIMIT ?2`,
    )
    .bind(now, limit, JSON.stringify(orgDefaults))
    .all<ReminderDueRow>();
  return results;
}

/** The reminder columns of an envelope as the cron read them: nothing is written for it unless they are still so. */
export type ReminderMark = { envelopeId: string; now: string; remindersSent: number; lastReminderAt: string | null; expiryWarnedAt: string | null };

/**
 * A condition (for `WHERE EXISTS (…)`) that holds while the envelope is open and its reminder columns
 * are as read, with its binds. Every statement of a reminder run carries it and the run's last statement
 * (`envelopeReminderMarkUpdate`) changes the columns, so of two overlapping runs only the first batch writes.
 */
export function reminderMarkCondition(m: ReminderMark): { sql: string; binds: (string | number | null)[] } {
  return {
    sql: `SELECT 1 FROM envelopes WHERE id = ? AND status IN ('sent', 'viewed') AND expires_at > ? AND reminders_sent = ? AND last_reminder_at IS ? AND expiry_warned_at IS ?`,
    binds: [m.envelopeId, m.now, m.remindersSent, m.lastReminderAt, m.expiryWarnedAt],
  };
}

/** Records what a run sent (last in its batch): a reminder (`reminders_sent` + 1, `last_reminder_at`), the expiry warning, or both. */
export function envelopeReminderMarkUpdate(db: D1Database, m: ReminderMark, sent: { reminder: boolean; warning: boolean }): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE envelopes SET reminders_sent = reminders_sent + ?, last_reminder_at = CASE WHEN ? THEN ? ELSE last_reminder_at END,
         expiry_warned_at = CASE WHEN ? THEN ? ELSE expiry_warned_at END
       WHERE id = ? AND status IN ('sent', 'viewed') AND expires_at > ? AND reminders_sent = ? AND last_reminder_at IS ? AND expiry_warned_at IS ? RETURNING id`,
    )
    .bind(sent.reminder ? 1 : 0, sent.reminder ? 1 : 0, m.now, sent.warning ? 1 : 0, m.now, m.envelopeId, m.now, m.remindersSent, m.lastReminderAt, m.expiryWarnedAt);
}

// ---- cc recipients (docs/consumer-signing.md "Recipients"; compose/create-envelope.ts, copies/) ----

export type CcRecipientRow = Row<typeof envelopeCcRecipients>;

/** The cc recipients of a create, one statement for the list (`json_each`), in the create's batch. */
export function ccRecipientsInsert(db: D1Database, input: { envelopeId: string; orgId: string; at: string; cc: { id: string; name: string; email: string }[] }): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO envelope_cc_recipients (id, envelope_id, org_id, name, email, position, created_at)
       SELECT json_extract(j.value, '$.id'), ?1, ?2, json_extract(j.value, '$.name'), json_extract(j.value, '$.email'), j.key, ?3 FROM json_each(?4) j`,
    )
    .bind(input.envelopeId, input.orgId, input.at, JSON.stringify(input.cc));
}

/** An envelope's cc recipients, in the order the create listed them. */
export async function listCcRecipients(db: D1Database, envelopeId: string): Promise<CcRecipientRow[]> {
  return (await db.prepare("SELECT * FROM envelope_cc_recipients WHERE envelope_id = ? ORDER BY position").bind(envelopeId).all<CcRecipientRow>()).results;
}

/** One cc recipient of an envelope, or null. */
export function findCcRecipient(db: D1Database, envelopeId: string, id: string): Promise<CcRecipientRow | null> {
  return db.prepare("SELECT * FROM envelope_cc_recipients WHERE envelope_id = ? AND id = ?").bind(envelopeId, id).first<CcRecipientRow>();
}

/** The cc recipients a loaded envelope carries (`cc_json`), in order; [] on a row not read with them. */
export function ccOf(row: { cc_json?: string | null }): { name: string; email: string }[] {
  if (!row.cc_json) return [];
  const list = JSON.parse(row.cc_json) as { name: string; email: string; position: number }[];
  return list.sort((a, b) => a.position - b.position).map(({ name, email }) => ({ name, email }));
}

/** What the signer's copy needs of an envelope found by id alone (the copy link names no organization: copies/). */
export function findEnvelopeForCopy(db: D1Database, envelopeId: string): Promise<Pick<EnvelopeRow, "id" | "org_id" | "name" | "status" | "signed_at"> | null> {
  return db.prepare("SELECT id, org_id, name, status, signed_at FROM envelopes WHERE id = ?").bind(envelopeId).first();
}

/**
 * The audit export's chains on one shard, a page at a time in id order: every envelope of the
 * organization and every envelope whose vault record it is a party of (controller, pledgor or
 * custodian; a record's chain is its envelope's). SQL exception: one UNION over envelopes and
 * vault_records, so the pages of both sets come out merged in one order with one cursor.
 */
export async function auditedEnvelopeIdsPage(db: D1Database, input: { orgId: string; afterId: string; limit: number }): Promise<string[]> {
  const { results } = await db
    .prepare(
      `SELECT id FROM envelopes WHERE org_id = ?1 AND id > ?2
       UNION SELECT envelope_id FROM vault_records WHERE (controller_org_id = ?1 OR pledgor_org_id = ?1 OR custodian_org_id = ?1) AND envelope_id > ?2
       ORDER BY 1 LIMIT ?3`,
    )
    .bind(input.orgId, input.afterId, input.limit)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

/**
 * The organization owning an envelope (or the envelope a signer belongs to) and the envelope's `locale`,
 * in one indexed read on the record's shard: what the pages' HTML needs (frame ancestors, language).
 * Null when neither exists.
 */
export function findRecordOwnerAndLocale(db: D1Database, ref: { envelopeId: string } | { signerId: string }): Promise<{ org_id: string; locale: Locale | null } | null> {
  return ("envelopeId" in ref
    ? db.prepare("SELECT org_id, locale FROM envelopes WHERE id = ?").bind(ref.envelopeId)
    : db.prepare("SELECT e.org_id, e.locale FROM signers s JOIN envelopes e ON e.id = s.envelope_id WHERE s.id = ?").bind(ref.signerId)
  ).first<{ org_id: string; locale: Locale | null }>();
}
