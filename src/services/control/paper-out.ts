import type { OrgContext } from "../../lib/context";
import { ApiError } from "../../lib/errors";
import { loadSealKey, markConvertedToPaper } from "../../pdf";
import { sha256Hex } from "../../lib/crypto";
import { putCopy } from "../vault/marked-copy";
import { vaultKeys } from "../vault/keys";
import { findVaultRecordById } from "../vault/repository";
import { signVaultUrl } from "../vault/signed-url";
import { closeRecord } from "./close-record";
import { controlView, type ControlView } from "./view";

/** How long the paper copy's URL in paper-out's answer is valid (seconds); later ones come from the record's download routes. */
export const PAPER_URL_TTL_SECONDS = 300;

/**
 * POST /partner/vault/:vault_id/paper-out (docs/control.md): the controller takes the record out of
 * electronic form; control closes for good (`paper_out`, the reason as `closed_note`). A copy of the
 * authoritative PDF stamped CONVERTED TO PAPER on every page and in its metadata is stored at the
 * record's `paper` key BEFORE the commit, and deleted if the commit does not happen (unless the record
 * is papered out after all: a concurrent paper-out won, and the copy at that key is its). The
 * authoritative copy is hashed first: bytes that no longer match the vaulting hash are not stamped
 * (409 `integrity_check_failed`). Answers the record with `paper_copy`, a signed URL valid 300 s.
 */
export async function paperOut(
  ctx: OrgContext,
  input: { vaultId: string; reason: string; body?: unknown; signatureHeader: string | undefined },
): Promise<ControlView & { paper_copy: Awaited<ReturnType<typeof signVaultUrl>> }> {
  let paperKey: string | null = null;
  try {
    const state = await closeRecord(ctx, {
      vaultId: input.vaultId,
      status: "paper_out",
      note: input.reason,
      detail: { reason: input.reason },
      body: input.body ?? { reason: input.reason },
      signatureHeader: input.signatureHeader,
      prepare: async ({ record }) => {
        const object = await ctx.env.DOCS.get(record.authoritative_key);
        const bytes = object ? new Uint8Array(await object.arrayBuffer()) : null;
        if (!bytes || (await sha256Hex(bytes)) !== record.document_hash) {
          throw new ApiError(
            409,
            "The authoritative copy failed its integrity check: its bytes no longer match the SHA-256 recorded at vaulting, so no paper copy can be made from it",
            undefined,
            "integrity_check_failed",
          );
        }
        // re-serialized and sealed as a copy, never the authoritative bytes with an update appended (services/copies)
        const paper = await markConvertedToPaper(bytes, { vaultId: record.id, documentHash: record.document_hash, envelopeId: record.envelope_id, convertedAt: new Date() }, await loadSealKey(ctx.env));
        const key = vaultKeys(record.org_id, record.envelope_id, record.id).paper;
        await putCopy(ctx, key, paper.parts, { envelope_id: record.envelope_id, vault_id: record.id, role: "converted-to-paper" });
        paperKey = key;
      },
    });
    const [view, paper_copy] = await Promise.all([
      controlView(ctx, state),
      signVaultUrl(ctx.env, { record: state.record, envelope: state.envelope, file: "paper", expiresIn: PAPER_URL_TTL_SECONDS }),
    ]);
    return { ...view, paper_copy };
  } catch (err) {
    if (paperKey) {
      const key: string = paperKey;
      const now = await findVaultRecordById(ctx.db, input.vaultId).catch(() => null);
      if (now?.control_status !== "paper_out") await ctx.env.DOCS.delete(key).catch(() => {});
    }
    throw err;
  }
}
