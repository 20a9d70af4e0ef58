import type { OrgContext } from "../../lib/context";
import type { Env } from "../../env";
import { hmacSha256, timingSafeEqual, toHex } from "../../lib/crypto";
import { ApiError, type ErrorCodesByStatus, mergeErrorCodes } from "../../lib/errors";
import { requireSecret } from "../../lib/secrets";
import { getEnvelope, type EnvelopeRow } from "../envelopes/repository";
import { findVaultRecord, type VaultRecordRow } from "./repository";

/** authoritative PDF, marked copy, compliance certificate PDF, evidence bundle (ZIP: the controller's, and every other party's with the marked copy), the paper-out copy */
export const VAULT_FILES = ["authoritative", "copy", "certificate", "evidence", "evidence_copy", "paper"] as const;
export type VaultFile = (typeof VAULT_FILES)[number];

/**
 * Download URLs name the vault record by its opaque id and the file by role, never by R2 key, and
 * carry `exp` (Unix seconds) and `sig` = hex HMAC-SHA256 keyed by STORAGE_URL_SECRET over all three:
 * changing any byte of the id, the role or the expiry invalidates the signature. The authoritative
 * copy's URL also names the controller it was issued to (`c`, inside the HMAC: a "v2" string), so the
 * download can check that organization still controls the record (docs/control.md).
 */
function signature(secret: string, vaultId: string, file: VaultFile, exp: number, controllerOrgId: string | null): Promise<string> {
  const signed = controllerOrgId === null ? `vault-download:v1\n${vaultId}\n${file}\n${exp}` : `vault-download:v2\n${vaultId}\n${file}\n${exp}\n${controllerOrgId}`;
  return hmacSha256(secret, signed).then(toHex);
}

/** A file name a browser can save: the envelope name made safe, then the envelope id. */
export function downloadFilename(envelope: Pick<EnvelopeRow, "id" | "name">, file: VaultFile): string {
  const slug = envelope.name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80);
  const suffix = { authoritative: ".pdf", copy: "_non-authoritative-copy.pdf", certificate: "_certificate.pdf", evidence: "_evidence.zip", evidence_copy: "_evidence.zip", paper: "_converted-to-paper.pdf" }[file];
  return `${slug ? `${slug}_` : ""}${envelope.id}${suffix}`;
}

/**
 * Downloads follow control (docs/control.md and 13): the authoritative copy goes to the controller of the
 * moment only (403 `not_controller`, the code of control/state.ts, which this folder cannot import), and
 * to nobody once control is closed (409 `control_closed`: paid off, converted to paper, where the paper is
 * the original now, or destroyed). Checked when a URL is issued and again when it is used, with `orgId` the
 * organization the URL names: a link issued before a transfer, a pledge or its release dies with it.
 */
export function assertAuthoritativeServable(record: Pick<VaultRecordRow, "controller_org_id" | "control_status">, orgId: string): void {
  if (record.controller_org_id !== orgId) {
    throw new ApiError(403, "Only the controller of the authoritative copy may download it; the other parties get the marked copy", { controller_org_id: record.controller_org_id }, "not_controller");
  }
  if (record.control_status !== "active") {
    const why =
      record.control_status === "paper_out"
        ? "was converted to paper: the electronic copy is no longer authoritative"
        : record.control_status === "destroyed"
          ? `was destroyed after its retention period; what remains verifiable: ${DESTROYED_REMAINS}`
          : `is closed (${record.control_status})`;
    throw new ApiError(409, `The record ${why}, so its authoritative copy is not served`, { status: record.control_status }, "control_closed");
  }
}

/** What remains of a destroyed record, as every refused download says (docs/control.md "Retention"). */
export const DESTROYED_REMAINS =
  "its SHA-256, its audit chain, its certificate (JSON and PDF), its RFC 4998 evidence record and its destruction certificate (GET /partner/vault/{vault_id})";

/**
 * A destroyed record's files are gone (docs/control.md "Retention"): every download of a copy or an evidence
 * bundle answers 409 `record_destroyed`, saying what remains; the certificate is kept. The authoritative copy
 * answers as every closed record's does (assertAuthoritativeServable: 409 `control_closed`).
 */
export function assertNotDestroyed(record: Pick<VaultRecordRow, "control_status" | "destroyed_at">, file: VaultFile): void {
  if (record.control_status !== "destroyed" || file === "certificate" || file === "authoritative") return;
  throw new ApiError(
    409,
    `The record was destroyed after its retention period (${record.destroyed_at}): its files were deleted. What remains verifiable: ${DESTROYED_REMAINS}`,
    { status: "destroyed", destroyed_at: record.destroyed_at },
    "record_destroyed",
  );
}

/**
 * Spec 4.3: a signed URL for a vault file (the authoritative PDF, its copy, the certificate PDF, the
 * evidence bundle) on the envelope path, to the envelope's organization; 404 unless the envelope is
 * vaulted. The authoritative copy only while it controls the record (assertAuthoritativeServable).
 */
export async function createVaultUrl(ctx: OrgContext, input: { envelopeId: string; file: VaultFile; expiresIn: number }) {
  const { envelope, record } = await findVaultedEnvelope(ctx, input.envelopeId);
  assertNotDestroyed(record, input.file);
  if (input.file === "authoritative") assertAuthoritativeServable(record, ctx.orgId);
  return signVaultUrl(ctx.env, { record, envelope, file: input.file, expiresIn: input.expiresIn, controllerOrgId: ctx.orgId });
}

/** The caller's envelope and its vault record, on the envelope path; 404 unless the envelope is vaulted. */
export async function findVaultedEnvelope(ctx: OrgContext, envelopeId: string): Promise<{ envelope: EnvelopeRow; record: VaultRecordRow }> {
  const envelope = await getEnvelope(ctx.db, ctx.orgId, envelopeId);
  const record = envelope.status === "vaulted" ? await findVaultRecord(ctx.db, envelope.id) : null;
  if (!record) throw new ApiError(404, "Vaulted document not found: the envelope is not vaulted");
  return { envelope, record };
}

/**
 * A signed download URL of one file of a vault record the caller may have (its access checked by the
 * caller). The authoritative copy's names `controllerOrgId`, the controller it is issued to.
 */
export async function signVaultUrl(
  env: Env,
  input: { record: Pick<VaultRecordRow, "id">; envelope: Pick<EnvelopeRow, "id" | "name">; file: VaultFile; expiresIn: number; controllerOrgId?: string },
) {
  const { record, envelope } = input;
  const secret = requireSecret(env, "STORAGE_URL_SECRET");
  const exp = Math.floor(Date.now() / 1000) + input.expiresIn;
  const controller = bindsController(input.file) ? (input.controllerOrgId ?? null) : null;
  if (bindsController(input.file) && controller === null) throw new Error("an authoritative copy's URL names the controller it is issued to");
  const sig = await signature(secret, record.id, input.file, exp, controller);
  const host = env.STORAGE_HOST.replace(/\/+$/, "");
  return {
    signed_url: `${host}/v/${record.id}/${input.file}?exp=${exp}${controller === null ? "" : `&c=${encodeURIComponent(controller)}`}&sig=${sig}`,
    filename: downloadFilename(envelope, input.file),
    expires_in: input.expiresIn,
    expires_at: new Date(exp * 1000).toISOString(),
  };
}

/** The files that carry the authoritative copy's bytes (the PDF, the controller's evidence bundle): their links name the controller. */
const bindsController = (file: VaultFile) => file === "authoritative" || file === "evidence";

/**
 * Checks a download URL's signature (timing-safe) and then its expiry. Both failures are 403, as a
 * presigned object-store URL answers; the expiry is only trusted once the signature covers it. An
 * authoritative copy's URL must name its controller (`c`); one without (issued before links named
 * it) no longer verifies. Whether that organization still controls the record is the caller's check.
 */
export async function verifyVaultUrl(env: Env, input: { vaultId: string; file: VaultFile; exp: string; sig: string; c?: string }): Promise<void> {
  const secret = requireSecret(env, "STORAGE_URL_SECRET");
  const exp = /^\d{1,12}$/.test(input.exp) ? Number(input.exp) : NaN;
  const controller = bindsController(input.file) ? (input.c ?? "") : null;
  const expected = Number.isNaN(exp) || controller === "" ? null : await signature(secret, input.vaultId, input.file, exp, controller);
  if (!expected || !timingSafeEqual(expected, input.sig.toLowerCase())) throw new ApiError(403, "Invalid download link: the signature does not match");
  if (exp * 1000 <= Date.now()) throw new ApiError(403, "This download link has expired; request a new one");
}

/** What the authoritative copy answers to another party or on a closed record (assertAuthoritativeServable). */
export const AUTHORITATIVE_COPY_ERRORS: ErrorCodesByStatus = { 403: ["not_controller"], 409: ["control_closed"] };
/** What a copy or an evidence bundle of a destroyed record answers (assertNotDestroyed). */
export const RECORD_DESTROYED_ERRORS: ErrorCodesByStatus = { 409: ["record_destroyed"] };
/** What a download URL of any of a record's files may answer. */
export const VAULT_URL_ERRORS: ErrorCodesByStatus = mergeErrorCodes(AUTHORITATIVE_COPY_ERRORS, RECORD_DESTROYED_ERRORS);
