import type { OrgContext } from "../../lib/context";
import { ApiError } from "../../lib/errors";
import type { Certificate } from "../vault/certificate";
import { createPartyEvidenceUrl } from "../vault/evidence-bundle";
import { latestCertificate } from "../vault/repository";
import { assertAuthoritativeServable, assertNotDestroyed, signVaultUrl } from "../vault/signed-url";
import { assertController, assertVisible, readControl } from "./state";

/** The files of a record downloadable under /partner/vault/:vault_id/… */
export type RecordFile = "authoritative" | "copy" | "certificate" | "evidence";

/**
 * Downloads follow control (docs/control.md): the authoritative copy's signed URL to the controller only
 * (the other parties: 403 `not_controller`, the originator too once it sold); the marked copy, the
 * certificate PDF and the evidence bundle to every party of the record; anyone else 404.
 */
export async function createRecordUrl(ctx: OrgContext, input: { vaultId: string; file: RecordFile; expiresIn: number }) {
  const state = await readControl(ctx.db, input.vaultId);
  if (input.file !== "authoritative") assertVisible(state, ctx.orgId);
  assertNotDestroyed(state.record, input.file);
  if (input.file === "authoritative") {
    assertController(state, ctx.orgId);
    assertAuthoritativeServable(state.record, ctx.orgId);
  } else assertVisible(state, ctx.orgId);
  // the evidence bundle by role: the controller's carries the authoritative copy, the others' the marked copy
  if (input.file === "evidence") return createPartyEvidenceUrl(ctx, { record: state.record, envelope: state.envelope, expiresIn: input.expiresIn });
  return signVaultUrl(ctx.env, { record: state.record, envelope: state.envelope, file: input.file, expiresIn: input.expiresIn, controllerOrgId: ctx.orgId });
}

/** GET /partner/vault/:vault_id/certificate: the current certificate (as the envelope's certificate route answers), to every party. */
export async function getRecordCertificate(ctx: OrgContext, input: { vaultId: string }): Promise<Certificate> {
  const state = await readControl(ctx.db, input.vaultId);
  assertVisible(state, ctx.orgId);
  const row = await latestCertificate(ctx.db, state.envelope.id);
  if (!row) throw new ApiError(404, "Compliance certificate not found: it is generated when the envelope is vaulted");
  return JSON.parse(row.body) as Certificate;
}
