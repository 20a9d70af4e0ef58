import { conflict } from "../../lib/errors";
import { inOrg, type RequestContext } from "../../lib/context";
import { inviteNextSigners } from "../email/invite-next-signers";
import { signersWhoseTurnItIs } from "../signers/repository";
import { loadSealKey } from "../../pdf";
import { autoVaultIfConsented } from "../vault/auto-vault";
import { commitSignerChange, type SignerChange } from "./commit-signer-change";
import { buildSignedDocument, discardSigned } from "./complete-envelope";
import { acceptValues, publicValue, type SubmittedValue } from "./field-values";
import { requestOrigin, signerData } from "./signer-actor";
import { assertKbaCleared } from "../kba/gate";

export type SubmitResult = { signer_status: "completed"; envelope_status: string; completed: boolean };

/**
 * POST /signing/:slug/submit. Validates the signer's values, records them with the signer's
 * `signer.started` and `signer.completed` (the page has no separate "start" call: filling and
 * submitting are one request), and, when this signer is the last, stamps the document and moves the
 * envelope to `completed` in the same batch. Drawn signature images go to R2 first, under fresh keys.
 * After the commit: the next routing order is invited, or the completed envelope is auto-vaulted.
 */
export async function submitSigning(
  ctx: RequestContext,
  input: { signerId: string; values: Record<string, SubmittedValue> },
): Promise<SubmitResult> {
  const written: string[] = [];
  const outcome = await commitSignerChange(ctx, input.signerId, async (sc, at) => {
    const { signer, envelope } = sc;
    await assertKbaCleared(ctx.db, signer.id);
    if (signer.status === "completed") throw conflict("This signer has already signed", { signer_status: signer.status });
    if (!signersWhoseTurnItIs(sc.signers).some((s) => s.id === signer.id)) {
      throw conflict("It is not this signer's turn: earlier signers in the signing order have not signed yet", { signer_status: signer.status });
    }
    // The completing submit seals the document: an unconfigured or unusable seal refuses it (503) before anything is written.
    if (sc.signers.every((s) => s.id === signer.id || s.status === "completed")) await loadSealKey(ctx.env);
    const own = sc.fields.filter((f) => f.role === signer.role);
    const accepted = acceptValues(own, input.values);
    const images = new Map<string, Uint8Array>();
    const statements: D1PreparedStatement[] = [];
    const finalValues = new Map(sc.fields.map((f) => [f.name, f.value]));
    for (const a of accepted) {
      let stored = a.stored;
      if (a.png) {
        const key = `signatures/${envelope.org_id}/${envelope.id}/${signer.id}-${crypto.randomUUID()}.png`;
        await ctx.env.DOCS.put(key, a.png, { httpMetadata: { contentType: "image/png" } });
        written.push(key);
        images.set(a.field.name, a.png);
        stored = `image:${key}`;
      }
      finalValues.set(a.field.name, stored);
      statements.push(ctx.env.DB.prepare("UPDATE envelope_fields SET value = ? WHERE envelope_id = ? AND name = ?").bind(stored, envelope.id, a.field.name));
    }
    statements.push(
      ctx.env.DB.prepare("UPDATE signers SET status = 'completed', signed_at = ?, viewed_at = COALESCE(viewed_at, ?) WHERE id = ? AND status NOT IN ('completed', 'declined')").bind(
        at,
        at,
        signer.id,
      ),
    );
    const data = { envelope_id: envelope.id, ...signerData(signer) };
    const change: SignerChange = {
      entries: [
        { action: "signer.started", data, event: { type: "signer.started", data: { ...data, started_at: at } } },
        { action: "signer.completed", data, event: { type: "signer.completed", data: { ...data, signed_at: at } } },
      ],
      statements,
    };
    const last = sc.signers.every((s) => s.id === signer.id || s.status === "completed");
    if (last) {
      const fields = sc.fields.map((f) => ({ ...f, value: finalValues.get(f.name) ?? null }));
      const signed = await buildSignedDocument(ctx, sc, {
        fields,
        images,
        completedAt: at,
        lastSigner: { id: signer.id, origin: requestOrigin(ctx.actor) },
      });
      written.push(signed.key);
      change.statements.push(signed.statement);
      change.abandon = () => discardSigned(ctx, signed.key);
      change.transition = {
        action: "complete",
        set: { signed_at: at },
        data: { signed_document_sha256: signed.sha256 },
        eventData: { values: Object.fromEntries(fields.map((f) => [f.name, publicValue(f)])) },
      };
    }
    return { change, result: { last, envelopeId: envelope.id, orgId: envelope.org_id, status: last ? "completed" : envelope.status } };
  });
  if (outcome.last) {
    await autoVaultIfConsented(ctx, { envelopeId: outcome.envelopeId }).catch((err: unknown) => {
      console.error(JSON.stringify({ level: "error", msg: "auto-vault after signing failed", envelope_id: outcome.envelopeId, error: String(err) }));
    });
  } else {
    await inviteNextSigners(inOrg(ctx, outcome.orgId), { envelopeId: outcome.envelopeId });
  }
  return { signer_status: "completed", envelope_status: outcome.status, completed: outcome.last };
}
