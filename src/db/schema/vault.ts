import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { envelopes } from "./envelopes";

export const CONTROL_STATUSES = ["active", "paid_off", "paper_out", "destroyed"] as const;
export type ControlStatus = (typeof CONTROL_STATUSES)[number];
export const TRANSFER_KINDS = ["assignment", "pledge"] as const;
export type TransferKind = (typeof TRANSFER_KINDS)[number];
export const TRANSFER_STATUSES = ["pending", "accepted", "rejected", "cancelled", "expired"] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/**
 * The vault record of an envelope: which R2 object is its authoritative copy, which is the marked
 * non-authoritative copy, and the SHA-256 taken when the authoritative bytes were stored.
 *
 * UCC §9-105 needs exactly one authoritative copy. The unique index on `envelope_id` is what makes
 * that true under concurrency and crashes: vault-in writes its R2 objects first, under keys unique to
 * the attempt, and only the attempt whose D1 batch inserts this row (together with the envelope's
 * move to `vaulted`) owns an authoritative copy. Objects of an attempt that lost are not
 * authoritative, whatever their bytes, and are deleted.
 */
export const vaultRecords = sqliteTable(
  "vault_records",
  {
    /** `vlt_…`: the authoritative copy's id (compliance check 2), also the opaque id in download URLs */
    id: text("id").primaryKey(),
    envelopeId: text("envelope_id").notNull().references(() => envelopes.id),
    orgId: text("org_id").notNull(),
    /** the organization holding the copy as custodian (check 4); the envelope's organization today */
    custodianOrgId: text("custodian_org_id").notNull(),
    /** R2 key of the authoritative copy: the vault path; never returned to a partner */
    authoritativeKey: text("authoritative_key").notNull(),
    documentHash: text("document_hash").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    pageCount: integer("page_count").notNull(),
    copyKey: text("copy_key").notNull(),
    copyHash: text("copy_hash").notNull(),
    copySizeBytes: integer("copy_size_bytes").notNull(),
    /** every page of the copy carries the stamp and its metadata says so (check 6) */
    copyMarked: integer("copy_marked", { mode: "boolean" }).notNull(),
    /** `signed` (e-sign path) or `upload` (paper path) */
    source: text("source", { enum: ["signed", "upload"] }).notNull(),
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    /** auto-vault: the user whose consent the system acted on */
    onBehalfOf: text("on_behalf_of"),
    storedAt: text("stored_at").notNull(),
    /**
     * Control of the authoritative copy (docs/control.md). `org_id` is the originator (the vaulting
     * organization, forever); the controller has control under §9-105 and is the only one given the
     * authoritative copy; a pledgor is set while the copy is pledged (control returns to it on release).
     * Every change of these columns is an entry on the envelope's chain, committed with it.
     */
    controllerOrgId: text("controller_org_id").notNull().default(""),
    pledgorOrgId: text("pledgor_org_id"),
    controlStatus: text("control_status", { enum: CONTROL_STATUSES }).notNull().default("active"),
    /** accepted transfers (assignments and pledges), for the certificate */
    transferCount: integer("transfer_count").notNull().default(0),
    /** when the record closed (paid off, papered out), and the reference or reason given */
    closedAt: text("closed_at"),
    closedNote: text("closed_note"),
    /**
     * Retention (docs/control.md): set when the record closes, from the closing controller's policy; before it the
     * record cannot be destroyed (409 `retention_period`). `destroyed_at` and the destruction certificate (its JSON
     * and the seal's JWS over it) once the R2 objects were deleted; hashes, chain and certificate JSON stay.
     */
    retainUntil: text("retain_until"),
    destroyedAt: text("destroyed_at"),
    destructionCertificate: text("destruction_certificate", { mode: "json" }).$type<Record<string, unknown>>(),
    destructionJws: text("destruction_jws"),
    /**
     * The R2 keys a destruction still has to delete (JSON array), set with `destroyed` and cleared once every
     * delete succeeded; the destruction cron retries them every minute until then (docs/control.md "Retention").
     */
    pendingDeletions: text("pending_deletions", { mode: "json" }).$type<string[]>(),
    /** the PAdES baseline level of the authoritative copy's seal at vaulting (docs/evidence.md); never changes after */
    evidenceLevel: text("evidence_level").notNull().default("B-B"),
    /**
     * When the record's RFC 4998 evidence record is next due (docs/evidence.md): `stored_at` until its first
     * one, then its newest version's `renew_by`. The renewal job reads the due records by this index, not
     * by scanning every record every minute.
     */
    evidenceDueAt: text("evidence_due_at"),
  },
  (t) => [
    uniqueIndex("vault_records_envelope_uq").on(t.envelopeId),
    index("vault_records_evidence_due_idx").on(t.evidenceDueAt),
    index("vault_records_org_idx").on(t.orgId),
    // the book of each role: GET /partner/vault?role=controller|pledgor
    index("vault_records_controller_idx").on(t.controllerOrgId, t.storedAt),
    index("vault_records_pledgor_idx").on(t.pledgorOrgId, t.storedAt),
    // the destruction cron's walk: closed records whose retention has passed
    index("vault_records_retain_idx").on(t.retainUntil),
    // the cron's retry of deletions that failed: only records with some left
    index("vault_records_pending_deletions_idx").on(t.id).where(sql`pending_deletions IS NOT NULL`),
  ],
);

/**
 * Legal holds on a vault record (docs/control.md "Legal holds"): placed by a party of the record or by the operator,
 * released by whoever placed it. While one is unreleased the record cannot be destroyed (409 `legal_hold`).
 */
export const vaultHolds = sqliteTable(
  "vault_holds",
  {
    /** `vhd_…` */
    id: text("id").primaryKey(),
    vaultId: text("vault_id").notNull().references(() => vaultRecords.id),
    envelopeId: text("envelope_id").notNull(),
    /** the organization that placed it; null: the operator */
    placedByOrgId: text("placed_by_org_id"),
    placedByActorId: text("placed_by_actor_id"),
    reason: text("reason").notNull(),
    reference: text("reference"),
    placedAt: text("placed_at").notNull(),
    releasedAt: text("released_at"),
    releasedByActorId: text("released_by_actor_id"),
  },
  (t) => [index("vault_holds_vault_idx").on(t.vaultId, t.placedAt)],
);

/**
 * A transfer of control offered by the controller (an assignment, or a pledge to a lender), accepted,
 * rejected or cancelled by the parties, or expired after 7 days. At most one is pending per record:
 * the partial unique index refuses a second one even to two racing offers.
 */
export const vaultTransfers = sqliteTable(
  "vault_transfers",
  {
    /** `vtr_…` */
    id: text("id").primaryKey(),
    vaultId: text("vault_id").notNull().references(() => vaultRecords.id),
    envelopeId: text("envelope_id").notNull(),
    kind: text("kind", { enum: TRANSFER_KINDS }).notNull(),
    fromOrgId: text("from_org_id").notNull(),
    toOrgId: text("to_org_id").notNull(),
    status: text("status", { enum: TRANSFER_STATUSES }).notNull(),
    reference: text("reference"),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    settledAt: text("settled_at"),
    /**
     * The pool (`vpl_…`, docs/control.md "Pools") this row holds the record for: a pool's hold on a
     * record is a pending transfer of its own, so the partial unique index below keeps a record out of
     * a pool and a single transfer at once, whichever commits first. Null: a single transfer.
     */
    poolId: text("pool_id"),
  },
  (t) => [
    index("vault_transfers_pool_idx").on(t.poolId, t.status),
    uniqueIndex("vault_transfers_pending_uq").on(t.vaultId).where(sql`status = 'pending'`),
    index("vault_transfers_to_idx").on(t.toOrgId, t.createdAt),
    index("vault_transfers_from_idx").on(t.fromOrgId, t.createdAt),
    index("vault_transfers_expiry_idx").on(t.status, t.expiresAt),
  ],
);

export const POOL_STATUSES = ["preparing", "pending", "accepted", "rejected", "cancelled", "expired"] as const;
export type PoolStatus = (typeof POOL_STATUSES)[number];

/**
 * A pool of vaulted records offered at once (docs/control.md "Pools"): up to 10,000 records, each held by
 * a pending `vault_transfers` row naming the pool on its record's shard. The pool row lives on the
 * offering organization's current shard (its id names it). `preparing` while the holds are written,
 * `pending` once every record is held; accepted, rejected, cancelled or expired by the parties or the
 * minute job. After an acceptance `completed_at` is set once every record moved (progress is counted from
 * the holds); after any other end `released_at` is set once every hold was released.
 */
export const vaultPools = sqliteTable(
  "vault_pools",
  {
    /** `vpl_<shard>_…` */
    id: text("id").primaryKey(),
    kind: text("kind", { enum: TRANSFER_KINDS }).notNull(),
    fromOrgId: text("from_org_id").notNull(),
    toOrgId: text("to_org_id").notNull(),
    status: text("status", { enum: POOL_STATUSES }).notNull(),
    reference: text("reference"),
    count: integer("count").notNull(),
    manifestSha256: text("manifest_sha256").notNull(),
    /** the shard numbers holding the pool's records, JSON */
    shards: text("shards", { mode: "json" }).$type<number[]>().notNull(),
    /** the offering and the answering organization's Control-Signatures (`{ kid, jws }`), JSON, null when unkeyed */
    offerSignature: text("offer_signature", { mode: "json" }).$type<{ kid: string; jws: string }>(),
    answerSignature: text("answer_signature", { mode: "json" }).$type<{ kid: string; jws: string }>(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    settledAt: text("settled_at"),
    /** when every record of an accepted pool had moved (the receipt is sealed over the pool as of then) */
    completedAt: text("completed_at"),
    releasedAt: text("released_at"),
  },
  (t) => [index("vault_pools_status_idx").on(t.status, t.expiresAt), index("vault_pools_from_idx").on(t.fromOrgId, t.createdAt), index("vault_pools_to_idx").on(t.toOrgId, t.createdAt)],
);

/**
 * An organization's control keys (docs/control.md): public keys (ES256 or Ed25519) by whose signature
 * alone it acts on control once it has one. `kid` is the key's RFC 7638 thumbprint.
 */
export const controlKeys = sqliteTable(
  "control_keys",
  {
    orgId: text("org_id").notNull(),
    kid: text("kid").notNull(),
    alg: text("alg", { enum: ["ES256", "EdDSA"] }).notNull(),
    /** the public JWK, JSON */
    jwk: text("jwk", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.kid] })],
);

/**
 * The `jti` of each Control-Signature an organization spent on a key change (docs/control.md): a key add or
 * delete is signed over a fresh `jti` instead of a record's control sequence, and each is good once. A
 * row outlives the signature's 5-minute `iat` window only by a margin: the prune job deletes it after.
 */
export const controlJtis = sqliteTable(
  "control_jtis",
  {
    orgId: text("org_id").notNull(),
    jti: text("jti").notNull(),
    usedAt: text("used_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.jti] }), index("control_jtis_used_idx").on(t.usedAt)],
);

/**
 * Every re-hash of an authoritative copy: at vault-in, on each authoritative download and by the
 * weekly sweep. The newest row decides compliance check 3. `observed_hash` is null when the object
 * was missing.
 */
export const vaultIntegrityChecks = sqliteTable(
  "vault_integrity_checks",
  {
    id: text("id").primaryKey(),
    vaultId: text("vault_id").notNull().references(() => vaultRecords.id),
    envelopeId: text("envelope_id").notNull(),
    orgId: text("org_id").notNull(),
    source: text("source", { enum: ["vault_in", "download", "sweep"] }).notNull(),
    matched: integer("matched", { mode: "boolean" }).notNull(),
    expectedHash: text("expected_hash").notNull(),
    observedHash: text("observed_hash"),
    observedSizeBytes: integer("observed_size_bytes"),
    checkedAt: text("checked_at").notNull(),
  },
  (t) => [
    index("vault_integrity_envelope_idx").on(t.envelopeId, t.checkedAt),
    // the newest check of a copy decides compliance check 3: read by the sweep and every download
    index("vault_integrity_vault_idx").on(t.vaultId, t.checkedAt),
  ],
);

/**
 * Compliance certificates, one row per issue. A new version is issued at vault-in and whenever a
 * check's outcome changes (a tamper detection, a restored object); the newest version is the one
 * served. `body` is the certificate JSON exactly as served; the PDF rendering lives in R2.
 */
export const vaultCertificates = sqliteTable(
  "vault_certificates",
  {
    id: text("id").primaryKey(),
    envelopeId: text("envelope_id").notNull().references(() => envelopes.id),
    orgId: text("org_id").notNull(),
    vaultId: text("vault_id").notNull(),
    version: integer("version").notNull(),
    body: text("body", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    compliant: integer("compliant", { mode: "boolean" }).notNull(),
    score: real("score").notNull(),
    pdfKey: text("pdf_key").notNull(),
    reason: text("reason").notNull(),
    issuedAt: text("issued_at").notNull(),
  },
  (t) => [uniqueIndex("vault_certificates_version_uq").on(t.envelopeId, t.version)],
);

/**
 * Auto-vault consent for one envelope (spec 4.6: the semantics of the bulk-send vault consent). With
 * consent, the envelope is vaulted by the system once it is completed, on `accepted_by`'s behalf.
 */
export const vaultConsents = sqliteTable("vault_consents", {
  envelopeId: text("envelope_id").primaryKey().references(() => envelopes.id),
  orgId: text("org_id").notNull(),
  autoVaultEnabled: integer("auto_vault_enabled", { mode: "boolean" }).notNull(),
  /** vault_in_terms_accepted_at / _by: the acknowledgement that the vault holds the authoritative copy */
  termsAcceptedAt: text("terms_accepted_at"),
  termsAcceptedBy: text("terms_accepted_by"),
  updatedAt: text("updated_at").notNull(),
});

/**
 * Progress of a resumable job that walks a table in bounded batches (the integrity sweep). One row
 * per job; `cursor` is the last key processed in the current cycle. `lease_until` keeps two
 * overlapping invocations from walking the same rows.
 */
export const jobCursors = sqliteTable("job_cursors", {
  job: text("job").primaryKey(),
  cycleStartedAt: text("cycle_started_at").notNull(),
  cycleCompletedAt: text("cycle_completed_at"),
  cursor: text("cursor").notNull(),
  processed: integer("processed").notNull().default(0),
  bytesProcessed: integer("bytes_processed").notNull().default(0),
  failures: integer("failures").notNull().default(0),
  leaseUntil: text("lease_until"),
  updatedAt: text("updated_at").notNull(),
});

/**
 * RFC 4998 evidence records over an authoritative copy's hash (docs/evidence.md): each renewal adds an
 * archive timestamp before the previous timestamp's TSA certificate expires, stored in R2 beside the
 * copy (`record_key`), never by rewriting the copy. The newest row of a vault record is its current record.
 */
export const vaultEvidenceRecords = sqliteTable(
  "vault_evidence_records",
  {
    id: text("id").primaryKey(),
    vaultId: text("vault_id").notNull(),
    orgId: text("org_id").notNull(),
    /** R2 key of the DER EvidenceRecord */
    recordKey: text("record_key").notNull(),
    recordSha256: text("record_sha256").notNull(),
    /** archive timestamps in the record */
    timestampCount: integer("timestamp_count").notNull(),
    /** when the newest timestamp's TSA certificate expires: the renewal job renews before it */
    renewBy: text("renew_by").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("vault_evidence_records_vault_idx").on(t.vaultId, t.createdAt), index("vault_evidence_records_renew_idx").on(t.renewBy)],
);
