import { conflict } from "../../lib/errors";
import { inOrg, type RequestContext } from "../../lib/context";
import { nowIso } from "../../lib/time";
import { inviteNextSigners } from "../email/invite-next-signers";
import { signerCompletedStatement, signersWhoseTurnItIs } from "../signers/repository";
import { loadSealKey } from "../../pdf";
import { autoVaultIfConsented } from "../vault/auto-vault";
import { commitSignerChange, type SignerChange } from "./commit-signer-change";
import { buildSignedDocument, discardSigned, type SignedDocument } from "./complete-envelope";
import { acceptValues, publicValue, type AcceptedValue, type SubmittedValue } from "./field-values";
import { loadSigningContext, setFieldValueStatement, type SigningContext } from "./repository";
import { requestOrigin, signerData } from "../signers/signer-actor";
import { assertKbaCleared } from "../kba/gate";
import { assertOtpVerified } from "../otp/gate";
import { completionCopyEmails, readCopyFacts, type CopyFacts } from "../copies/completion-copies";
import { deliverEmails } from "../email/deliver";
import type { OutboxEmail } from "../../providers/email";
import { assertConsentGiven } from "../signers/consent-gate";

export type SubmitResult = { signer_status: "completed"; envelope_status: string; completed: boolean };

/** Whether this signer may submit now (KBA cleared, not yet signed, their turn): 403/409 otherwise. */
async function assertMaySubmit(ctx: RequestContext, sc: SigningContext): Promise<void> {
  const { signer } = sc;
  await assertKbaCleared(ctx.db, signer.id);
  await assertOtpVerified(ctx.db, signer);
  if (signer.status !== "completed") assertConsentGiven(sc.envelope, signer);
  if (signer.status === "completed") throw conflict("This signer has already signed", { signer_status: signer.status });
  if (!signersWhoseTurnItIs(sc.signers).some((s) => s.id === signer.id)) {
    throw conflict("It is not this signer's turn: earlier signers in the signing order have not signed yet", { signer_status: signer.status });
  }
}

/** The one place that decides whether this submit completes the envelope: every other signer has signed. */
const completesEnvelope = (sc: SigningContext) => sc.signers.every((s) => s.id === sc.signer.id || s.status === "completed");

/** What the signed document is built from, besides this submit's values: a change here makes a built one stale. */
const documentInputs = (sc: SigningContext) =>
  JSON.stringify([sc.signers.map((s) => [s.id, s.status, s.viewed_at, s.signed_at]), sc.fields.map((f) => [f.name, f.value])]);

/** Each signature or initials field the signer adopted, by name: `typed` (text stamped in a script face) or `drawn` (a PNG). */
export function signatureMethods(accepted: AcceptedValue[]): Record<string, "typed" | "drawn"> {
  const methods: Record<string, "typed" | "drawn"> = {};
  for (const a of accepted) if (a.field.type === "signature" || a.field.type === "initials") methods[a.field.name] = a.png ? "drawn" : "typed";
  return methods;
}

/**
 * POST /signing/:slug/submit. Validates the signer's values, records them with the signer's
 * `signer.started` and `signer.completed` (the page has no separate "start" call: filling and
 * submitting are one request), and, when this signer is the last, moves the envelope to `completed`
 * in the same batch with the signed document.
 *
 * The expensive work happens once, outside the commit's retries: drawn signature images go to R2
 * under fresh keys before the first attempt, and the signed document (stamped, certified, sealed) is
 * built the first time an attempt finds this signer last. An attempt that lost a race re-plans from a
 * fresh read and reuses that document unless what it was built from changed (then it is built again:
 * it would otherwise show a stale state). After the commit the next routing order is invited; a
 * completed envelope is auto-vaulted after the response (`waitUntil`; the auto-vault sweep is the
 * safety net), so the signer never waits for it.
 */
export async function submitSigning(
  ctx: RequestContext,
  input: { signerId: string; values: Record<string, SubmittedValue> },
): Promise<SubmitResult> {
  const first = await loadSigningContext(ctx, input.signerId);
  await assertMaySubmit(ctx, first);
  // The completing submit seals the document: an unconfigured or unusable seal refuses it (503) before anything is written.
  if (completesEnvelope(first)) await loadSealKey(ctx.env);
  // the completed copies (docs/consumer-signing.md) go out with the completion: their facts read once, here
  let copyFacts: CopyFacts | null = completesEnvelope(first) ? await readCopyFacts(ctx, first.envelope) : null;
  let copyEmails: OutboxEmail[] = [];
  const accepted = acceptValues(first.fields.filter((f) => f.role === first.signer.role), input.values);
  const at = nowIso();
  const images = await storeImages(ctx, first, accepted);
  let signed: { inputs: string; document: SignedDocument } | null = null;
  let committed: SignedDocument | null = null;
  let outcome: { last: boolean; envelopeId: string; orgId: string; status: string };
  try {
    outcome = await commitSignerChange(ctx, input.signerId, async (sc) => {
      const { signer, envelope } = sc;
      // the first attempt plans on the state already checked; a re-read after a lost race is checked again
      if (sc !== first) await assertMaySubmit(ctx, sc);
      const statements: D1PreparedStatement[] = [];
      const finalValues = new Map(sc.fields.map((f) => [f.name, f.value]));
      for (const a of accepted) {
        const stored = images.keys.get(a.field.name) ?? a.stored;
        finalValues.set(a.field.name, stored);
        statements.push(setFieldValueStatement(ctx.db, envelope.id, a.field.name, stored));
      }
      statements.push(signerCompletedStatement(ctx.db, signer.id, at));
      const data = { envelope_id: envelope.id, ...signerData(signer) };
      const change: SignerChange = {
        entries: [
          { action: "signer.started", data, event: { type: "signer.started", data: { ...data, started_at: at } } },
          // how each signature and initials was adopted (typed or drawn), for the audit only (docs/decisions/typed-signatures.md)
          { action: "signer.completed", data: { ...data, signature_methods: signatureMethods(accepted) }, event: { type: "signer.completed", data: { ...data, signed_at: at } } },
        ],
        statements,
        at,
      };
      const last = completesEnvelope(sc);
      committed = null;
      copyEmails = [];
      if (last) {
        const fields = sc.fields.map((f) => ({ ...f, value: finalValues.get(f.name) ?? null }));
        const inputs = documentInputs(sc);
        if (signed?.inputs !== inputs) {
          if (signed) await discardSigned(ctx, signed.document.key);
          signed = null;
          const document = await buildSignedDocument(ctx, sc, { fields, images: images.bytes, completedAt: at, lastSigner: { id: signer.id, origin: requestOrigin(ctx.actor) } });
          signed = { inputs, document };
        }
        committed = signed.document;
        change.statements.push(signed.document.statement);
        // every signer's and cc recipient's `completed_copy` email, queued in the completion's own batch
        copyFacts ??= await readCopyFacts(ctx, envelope);
        const copies = await completionCopyEmails(ctx, { envelope, signers: sc.signers, facts: copyFacts, completedAt: at });
        change.statements.push(...copies.statements);
        copyEmails = copies.emails;
        change.transition = {
          action: "complete",
          set: { signed_at: at },
          data: {
            signed_document_sha256: signed.document.sha256,
            // docs/evidence.md: the level the seal reached and the configuration's target (and why short of it)
            evidence_level: signed.document.evidence.level,
            evidence_level_target: signed.document.evidence.target,
            ...(signed.document.evidence.shortfall ? { evidence_shortfall: signed.document.evidence.shortfall } : {}),
          },
          eventData: { values: Object.fromEntries(fields.map((f) => [f.name, publicValue(f)])) },
        };
      }
      return { change, result: { last, envelopeId: envelope.id, orgId: envelope.org_id, status: last ? "completed" : envelope.status } };
    }, first);
  } catch (err) {
    // Nothing of this submit committed: what it wrote to R2 goes (a built document, drawn images).
    const built = signed as { document: SignedDocument } | null;
    await discardSigned(ctx, ...(built ? [built.document.key] : []), ...images.written).catch(() => undefined);
    throw err;
  }
  // A document built for an attempt after which this signer turned out not to be last is not kept.
  const built = signed as { document: SignedDocument } | null;
  if (built && built.document !== committed) await discardSigned(ctx, built.document.key).catch(() => undefined);

  if (outcome.last) {
    // the copies' emails go to the transport after the response; the retry job picks up any left queued
    if (copyEmails.length) ctx.waitUntil(deliverEmails(ctx, { emails: copyEmails }).then(() => undefined, () => undefined));
    ctx.waitUntil(
      autoVaultIfConsented(ctx, { envelopeId: outcome.envelopeId }).catch((err: unknown) => {
        console.error(JSON.stringify({ level: "error", msg: "auto-vault after signing failed; the sweep will retry", envelope_id: outcome.envelopeId, error: String(err) }));
      }),
    );
  } else {
    await inviteNextSigners(inOrg(ctx, outcome.orgId), { envelopeId: outcome.envelopeId });
  }
  return { signer_status: "completed", envelope_status: outcome.status, completed: outcome.last };
}

/** Drawn signatures go to R2 once, under fresh keys, before the commit's first attempt; the field stores `image:<key>`. */
async function storeImages(ctx: RequestContext, sc: SigningContext, accepted: AcceptedValue[]) {
  const keys = new Map<string, string>();
  const bytes = new Map<string, Uint8Array>();
  const written: string[] = [];
  for (const a of accepted) {
    if (!a.png) continue;
    const key = `signatures/${sc.envelope.org_id}/${sc.envelope.id}/${sc.signer.id}-${crypto.randomUUID()}.png`;
    await ctx.env.DOCS.put(key, a.png, { httpMetadata: { contentType: "image/png" } });
    written.push(key);
    bytes.set(a.field.name, a.png);
    keys.set(a.field.name, `image:${key}`);
  }
  return { keys, bytes, written };
}
