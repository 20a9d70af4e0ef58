import { z } from "@hono/zod-openapi";
import { CONTROL_STATUSES, TRANSFER_KINDS, TRANSFER_STATUSES } from "../../db/schema";
import { Timestamp } from "../envelopes/schema";

// The control record, the book, the control history and the attestation as the API documents them
// (docs/control.md). The transfer's shape is here too: the record shows its pending transfer.

export const VaultId = z.string().openapi({ example: "vlt_4d2k8m1q7c9v3b5n6p0r2t4w6y", description: "The vault record's id (`vlt_…`)" });

export const VaultParams = z.object({
  vault_id: z
    .string()
    .max(64)
    .openapi({ param: { name: "vault_id", in: "path" }, example: "vlt_4d2k8m1q7c9v3b5n6p0r2t4w6y" }),
});

const PartySchema = z.object({ org_id: z.string(), name: z.string() }).openapi("VaultParty", { example: { org_id: "org_2b4d6f8h0j2k4m6p8r0t2v4x6z", name: "Lakeside Motors" } });

export const TRANSFER_EXAMPLE = {
  transfer_id: "vtr_7c1v9b3n5m2k8q4w6e0r2t4y6u",
  vault_id: "vlt_4d2k8m1q7c9v3b5n6p0r2t4w6y",
  kind: "assignment" as const,
  from_org_id: "org_2b4d6f8h0j2k4m6p8r0t2v4x6z",
  to_org_id: "org_9z7x5v3t1r9p7n5m3k1j9h7g5f",
  status: "pending" as const,
  reference: "Purchase agreement 2026-118",
  created_at: "2026-11-24T10:00:00.000Z",
  expires_at: "2026-12-01T10:00:00.000Z",
};

export const TransferSchema = z
  .object({
    transfer_id: z.string().openapi({ description: "`vtr_…`" }),
    vault_id: VaultId,
    kind: z.enum(TRANSFER_KINDS),
    from_org_id: z.string(),
    to_org_id: z.string(),
    status: z.enum(TRANSFER_STATUSES),
    reference: z.string().nullable(),
    created_at: Timestamp,
    expires_at: Timestamp.openapi({ description: "7 days after the offer; a transfer still pending then becomes `expired`" }),
    pool_id: z.string().nullable().openapi({ description: "The pool (`vpl_…`) this transfer holds the record for (answer the pool, not the transfer); null for a single transfer" }),
  })
  .openapi("VaultTransfer", { example: TRANSFER_EXAMPLE });

const SUMMARY_EXAMPLE = {
  vault_id: "vlt_4d2k8m1q7c9v3b5n6p0r2t4w6y",
  envelope_id: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y",
  document_hash: "3f0c5e8a1b2d4c6e8f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6",
  evidence_level: "B-LTA",
  vaulted_at: "2026-11-23T09:40:00.000Z",
  status: "active" as const,
  originator: { org_id: "org_2b4d6f8h0j2k4m6p8r0t2v4x6z", name: "Lakeside Motors" },
  controller: { org_id: "org_2b4d6f8h0j2k4m6p8r0t2v4x6z", name: "Lakeside Motors" },
  pledgor: null,
  pending_transfer: TRANSFER_EXAMPLE,
  closed_at: null,
  retain_until: null,
  destroyed_at: null,
};

const summaryShape = {
  vault_id: VaultId,
  envelope_id: z.string(),
  document_hash: z.string().openapi({ description: "SHA-256 (hex) of the authoritative copy, recorded at vaulting" }),
  evidence_level: z.string().nullable().openapi({
    description: "PAdES baseline level (`B-B`, `B-T`, `B-LT`, `B-LTA`; ETSI EN 319 142-1) of the authoritative copy's seal, as vaulted (docs/evidence.md); null for a paper upload",
    example: "B-LTA",
  }),
  vaulted_at: Timestamp,
  status: z.enum(CONTROL_STATUSES).openapi({
    description: "`active`, or closed: `paid_off`, `paper_out`; `destroyed` once its retention passed and it was destroyed (its files deleted, its hashes, chain and certificate JSON kept)",
  }),
  originator: PartySchema.openapi({ description: "The organization that vaulted the envelope" }),
  controller: PartySchema.openapi({ description: "The organization with control of the authoritative copy (UCC §9-105)" }),
  pledgor: PartySchema.nullable().openapi({ description: "While the copy is pledged: the organization control returns to on release" }),
  pending_transfer: TransferSchema.nullable(),
  closed_at: Timestamp.nullable().openapi({ description: "When the record closed (paid off, papered out); null while active" }),
  retain_until: Timestamp.nullable().openapi({
    description: "Set when the record closes, from the closing controller's retention policy (PUT /org/retention): the record cannot be destroyed before it (409 `retention_period`); null while active",
  }),
  destroyed_at: Timestamp.nullable().openapi({ description: "When the record was destroyed; null otherwise" }),
};

export const HoldSchema = z
  .object({
    hold_id: z.string().openapi({ description: "`vhd_…`" }),
    placed_by_org_id: z.string().nullable().openapi({ description: "The organization that placed it; null: the operator" }),
    reason: z.string(),
    reference: z.string().nullable(),
    placed_at: Timestamp,
  })
  .openapi("VaultHold", {
    example: { hold_id: "vhd_1_4d2k8m1q7c9v3b5n6p0r2t4w6y", placed_by_org_id: "org_9z7x5v3t1r9p7n5m3k1j9h7g5f", reason: "Litigation: Smith v. Lakeside Motors", reference: "Case 26-cv-0412", placed_at: "2026-11-25T09:00:00.000Z" },
  });

export const DestructionSchema = z
  .object({
    certificate: z.record(z.string(), z.unknown()).openapi({
      description:
        "The destruction certificate: `{ type: \"vault-destruction-certificate\", vault_id, envelope_id, document_hash, copy_hash, closed_status, closed_at, retain_until, destroyed_at, destroyed_by: { type: \"organization\"|\"retention_cron\", org_id }, controller, deleted: [{ file, sha256|null }], kept: [...], chain_head, chain_length }`",
    }),
    jws: z.string().openapi({ description: "Compact JWS by the service's seal key over the certificate JSON (header `x5c`: the seal certificate chain; `typ` `vault-destruction-certificate+jws`)" }),
  })
  .openapi("VaultDestruction");

export const VaultRecordSummarySchema = z.object(summaryShape).openapi("VaultRecordSummary", { example: SUMMARY_EXAMPLE });

export const VAULT_RECORD_EXAMPLE = { ...SUMMARY_EXAMPLE, control_seq: 1, compliance: { compliant: true, score: 1, missing_requirements: [] }, holds: [], destruction: null };

export const VaultRecordSchema = z
  .object({
    ...summaryShape,
    control_seq: z.int().min(0).openapi({
      description:
        "The record's control sequence: the number of entries of its control history (GET /partner/vault/{vault_id}/control-history); every recorded control step, an offer included, adds one. A Control-Signature signs it as `control_seq`, so a signature is good for one step",
      example: 1,
    }),
    compliance: z.object({ compliant: z.boolean(), score: z.number(), missing_requirements: z.array(z.string()) }).openapi({
      description:
        "The eight UCC §9-105 checks evaluated now, as the certificate runs them. A destroyed record has no authoritative copy left: its integrity and copy checks fail and say so (docs/decisions/live-compliance.md)",
    }),
    holds: z.array(HoldSchema).openapi({ description: "The legal holds in force, oldest first: while one is, the record cannot be destroyed (409 `legal_hold`)" }),
    destruction: DestructionSchema.nullable().openapi({ description: "A destroyed record's destruction certificate, as kept; null otherwise" }),
  })
  .openapi("VaultRecord", { example: VAULT_RECORD_EXAMPLE });

export const BookQuery = z.object({
  role: z
    .enum(["controller", "originator", "pledgor"])
    .default("controller")
    .openapi({ param: { name: "role", in: "query" }, description: "Which records: those the caller controls (default), originated, or pledged", example: "controller" }),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1).openapi({ example: 1 }),
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ example: 20 }),
});

export const ControlHistoryEntrySchema = z
  .object({
    seq: z.int().openapi({ description: "The entry's sequence number on the envelope's audit chain" }),
    action: z.string().openapi({ example: "vault.control_transferred" }),
    from_org_id: z.string().nullable(),
    to_org_id: z.string().nullable(),
    transfer_id: z.string().nullable(),
    actor_key_id: z.string().nullable().openapi({ description: "The API key that acted (null: the service, e.g. an expiry)" }),
    at: Timestamp,
    entry_hash: z.string().nullable().openapi({ description: "The chain entry's SHA-256" }),
  })
  .openapi("ControlHistoryEntry", {
    example: {
      seq: 9,
      action: "vault.control_transferred",
      from_org_id: "org_2b4d6f8h0j2k4m6p8r0t2v4x6z",
      to_org_id: "org_9z7x5v3t1r9p7n5m3k1j9h7g5f",
      transfer_id: "vtr_7c1v9b3n5m2k8q4w6e0r2t4y6u",
      actor_key_id: "key_5t7y9u1i3o5p7a9s1d3f5g7h9j",
      at: "2026-11-24T11:02:00.000Z",
      entry_hash: "9b2c4d6e8f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0",
    },
  });

export const ControlHistorySchema = z.object({ data: z.array(ControlHistoryEntrySchema) });

export const AttestationSchema = z
  .object({
    jws: z.string().openapi({
      description:
        "Compact JWS signed by the service's seal key (RS256, ES256 or ES384 by its key type); header `x5c` = the seal certificate chain (base64 DER), payload `{ vault_id, envelope_id, document_hash, status, controller, pledgor, history_length, chain_head, iat }`",
    }),
  })
  .openapi("ControlAttestation", { example: { jws: "eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlC…In0.eyJ2YXVsdF9pZCI6InZsdF80ZDJr…fQ.MEUCIQ…" } });
