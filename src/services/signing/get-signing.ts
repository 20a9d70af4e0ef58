import { ApiError } from "../../lib/errors";
import type { RequestContext } from "../../lib/context";
import { assertKbaCleared, kbaCleared, kbaStateOf } from "../kba/gate";
import { assertOtpVerified, otpCleared, otpStateOf } from "../otp/gate";
import { assertConsentGiven, consentApplies, consentCleared } from "../signers/consent-gate";
import { pinnedDisclosure, signerConsentOf } from "../consent/disclosure";
import { signersWhoseTurnItIs } from "../signers/repository";
import { publicValue } from "./field-values";
import { findOriginalDocumentKey, pageSizesOf } from "../documents/repository";
import { areasOf, loadSigningContext, optionsOf } from "./repository";
import { signerCopyLink } from "../copies/signer-copy";
import { acceptOf } from "../attachments/value";

/**
 * GET /signing/:slug: what the signing page needs. The signer's own fields with their rules and
 * current value (prefilled or default); the other signers only as progress (name, role, order,
 * status), never their fields or values, and not at all until this signer has passed KBA.
 */
export async function getSigning(ctx: RequestContext, input: { signerId: string }) {
  const sc = await loadSigningContext(ctx, input.signerId, { allowClosed: true, pageSizes: true });
  const { signer, envelope } = sc;
  const turn = signersWhoseTurnItIs(sc.signers);
  // four reads at once, each independent of the others:
  // - a completed envelope: for 30 days its status and the signer's copy, no fields; otherwise closed is 410 as before
  // - KBA (spec rule 5): until this signer passes, the envelope and the signer only, no fields
  // - SMS passcode (docs/decisions/sms-otp.md): after KBA, before consent; no fields and nobody else named until verified
  // - the E-SIGN disclosure the envelope pinned, when consent applies
  const [copy, kba, otp, disclosure] = await Promise.all([
    signerCopyLink(ctx, { envelope: sc.envelope, signerId: sc.signer.id }),
    kbaStateOf(ctx.db, signer.id),
    otpStateOf(ctx.db, signer),
    consentApplies(envelope) ? pinnedDisclosure(ctx.global, envelope) : null,
  ]);
  const cleared = kbaCleared(kba) && otpCleared(otp);
  // E-SIGN (docs/consumer-signing.md): the fields carry the contract's terms (prefilled values): none before consent
  const consented = consentCleared(envelope, signer);
  const opens = !copy && cleared && consented;
  // the page lays out its pages and places the fields from these before its PDF viewer loads (docs/decisions/signing-page.md)
  const pages = opens ? pageSizesOf(sc.pageSizes ?? null) : null;
  return {
    envelope: { id: envelope.id, name: envelope.name, status: envelope.status, expires_at: envelope.expires_at, locale: envelope.locale },
    signer: { name: signer.name, email: signer.email, role: signer.role, routing_order: signer.routing_order, status: signer.status, viewed_at: signer.viewed_at, signed_at: signer.signed_at },
    is_your_turn: turn.some((s) => s.id === signer.id),
    view_only: ctx.signerSession?.viewOnly === true,
    kba,
    otp,
    consent: consentApplies(envelope) ? signerConsentOf(disclosure, signer.consent_given_at, envelope.locale) : null,
    fields: sc.fields
      .filter((f) => opens && f.role === signer.role)
      .map((f) => ({
        name: f.name,
        type: f.type,
        required: f.required === 1,
        readonly: f.readonly === 1,
        default_value: f.default_value,
        options: f.type === "attachment" ? null : optionsOf(f),
        ...(f.type === "attachment" ? { accept: acceptOf(f) } : {}),
        value: publicValue(f),
        areas: areasOf(f),
      })),
    pages,
    // before KBA is passed the holder of the link has not shown who they are: nobody else is named
    signers: sc.signers
      .filter((s) => cleared || s.id === signer.id)
      .map((s) => ({ name: s.name, role: s.role, routing_order: s.routing_order, status: s.status, is_you: s.id === signer.id })),
    ...(copy ? { copy } : {}),
  };
}

/** GET /signing/:slug/document: the original PDF, streamed from R2. */
export async function openSigningDocument(ctx: RequestContext, input: { signerId: string }) {
  const sc = await loadSigningContext(ctx, input.signerId);
  await assertKbaCleared(ctx.db, sc.signer.id);
  await assertOtpVerified(ctx.db, sc.signer);
  assertConsentGiven(sc.envelope, sc.signer);
  const row = await findOriginalDocumentKey(ctx.db, sc.envelope.id);
  const object = row ? await ctx.env.DOCS.get(row.r2_key) : null;
  if (!object) throw new ApiError(404, "This envelope has no document");
  return { body: object.body, size: object.size };
}
