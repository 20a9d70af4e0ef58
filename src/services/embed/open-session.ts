import type { OrgContext } from "../../lib/context";
import { forbidden } from "../../lib/errors";
import { getEnvelope, type EnvelopeRow } from "../envelopes/repository";
import { listSigners, signersWhoseTurnItIs, type SignerRow } from "../signers/repository";
import { getCertificate } from "../vault/get-certificate";
import { holdView } from "../control/view";
import { findOrgDefaultLocale, listOrganizationNames, listRetentionPolicies } from "../organizations/repository";
import { findVaultRecord, listActiveHolds, type VaultRecordRow } from "../vault/repository";
import { createVaultUrl } from "../vault/signed-url";
import type { EmbedSession } from "./schema";
import { mintSigningSession } from "../signers/signing-session";
import { assertEmbedTarget, type EmbedClaims, type WidgetType } from "./tokens";

/** Lifetime of the download URL a vault widget gets: the partner route's default. */
const DOWNLOAD_URL_SECONDS = 300;

/**
 * What an embed page loads after it starts: the page sends the token from its URL fragment (as a
 * bearer header, never in a URL) with the widget and envelope its path names. The token must be
 * genuine (401 otherwise) and for exactly that envelope and widget (403); the envelope is read in
 * the token's organization only, so no token reaches another organization's envelope (404).
 */
export async function openEmbedSession(
  ctx: OrgContext,
  input: { claims: EmbedClaims; widgetType: WidgetType; envelopeId: string },
): Promise<EmbedSession> {
  const { claims } = input;
  assertEmbedTarget(claims, { widgetType: input.widgetType, envelopeId: input.envelopeId });
  const envelope = await getEnvelope(ctx.db, ctx.orgId, claims.envelopeId);
  return claims.widgetType === "sign" ? signSession(ctx, claims, envelope) : vaultSession(ctx, claims, envelope);
}

const head = (envelope: EnvelopeRow) => ({ envelope_id: envelope.id, envelope_name: envelope.name, envelope_status: envelope.status });

/**
 * The signer the token was minted for, by email (case-insensitive). One person holding two roles has
 * two signer rows: the one whose turn it is comes first, then one still to sign, then the first.
 */
async function signSession(ctx: OrgContext, claims: EmbedClaims, envelope: EnvelopeRow): Promise<EmbedSession> {
  const email = claims.userEmail.trim().toLowerCase();
  const signers = await listSigners(ctx.db, envelope.id);
  const mine = signers.filter((s) => s.email.trim().toLowerCase() === email);
  const turn = signersWhoseTurnItIs(signers);
  const signer: SignerRow | undefined =
    mine.find((s) => turn.some((t) => t.id === s.id)) ?? mine.find((s) => s.status !== "completed") ?? mine[0];
  if (!signer) throw forbidden(`${claims.userEmail} is not a signer of this envelope`);
  // Never the permanent slug: a signing session that ends with the token (a leaked token is worth 15 minutes)
  const session = await mintSigningSession(ctx.env, { signerId: signer.id, expiresAt: claims.exp });
  return { widget_type: "sign", ...head(envelope), signing_slug: session, signing_session_expires_at: new Date(claims.exp * 1000).toISOString() };
}

/** The vaulted document's facts, certificate, retention and holds, and a fresh download URL, all from the vault's own services. */
async function vaultSession(ctx: OrgContext, claims: EmbedClaims, envelope: EnvelopeRow): Promise<EmbedSession> {
  const [record, locale] = await Promise.all([
    envelope.status === "vaulted" ? findVaultRecord(ctx.db, envelope.id) : null,
    claims.locale ?? findOrgDefaultLocale(ctx.global, ctx.orgId),
  ]);
  if (!record) return { widget_type: "vault", ...head(envelope), locale, vault: null };
  const destroyed = record.control_status === "destroyed";
  const [certificate, url, certificateUrl, retention] = await Promise.all([
    getCertificate(ctx, { envelopeId: envelope.id }),
    // downloads follow control (docs/control.md): once the organization sold the record or control closed, its widget offers the marked copy;
    // a destroyed record's files are gone, so it offers none
    destroyed
      ? null
      : createVaultUrl(ctx, {
          envelopeId: envelope.id,
          file: record.controller_org_id === ctx.orgId && record.control_status === "active" ? "authoritative" : "copy",
          expiresIn: DOWNLOAD_URL_SECONDS,
        }),
    createVaultUrl(ctx, { envelopeId: envelope.id, file: "certificate", expiresIn: DOWNLOAD_URL_SECONDS }),
    retentionOf(ctx, record),
  ]);
  const { compliant, score } = certificate.ucc_9105_compliance;
  return {
    widget_type: "vault",
    ...head(envelope),
    locale,
    vault: {
      sha256: record.document_hash,
      vaulted_at: envelope.vaulted_at ?? record.stored_at,
      certificate,
      download: url && { url: url.signed_url, expires_at: url.expires_at },
      certificate_download: { url: certificateUrl.signed_url, expires_at: certificateUrl.expires_at },
      compliance: { compliant, score },
      record: retention,
    },
  };
}

/**
 * What keeps or ends the record (docs/control.md "Retention", "Legal holds"): its `retain_until`, whether the
 * controller's policy destroys it by itself, the holds in force with who placed each, and its destroyed state.
 */
async function retentionOf(ctx: OrgContext, record: VaultRecordRow) {
  const holds = await listActiveHolds(ctx.db, record.id);
  const placers = [...new Set(holds.flatMap((h) => (h.placed_by_org_id ? [h.placed_by_org_id] : [])))];
  const [policies, names] = await Promise.all([listRetentionPolicies(ctx.global, [record.controller_org_id]), listOrganizationNames(ctx.global, placers)]);
  const nameOf = new Map(names.map((n) => [n.id, n.name]));
  return {
    vault_id: record.id,
    status: record.control_status,
    closed_at: record.closed_at,
    retain_until: record.retain_until,
    auto_destroy: policies[0]?.auto_destroy === 1,
    destroyed_at: record.destroyed_at,
    holds: holds.map((h) => ({ ...holdView(h), placed_by_name: h.placed_by_org_id ? (nameOf.get(h.placed_by_org_id) ?? h.placed_by_org_id) : null })),
  };
}
