import type { Env } from "../../env";
import type { OrgContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { getEnvelope, type EnvelopeRow } from "../envelopes/repository";
import { envelopeDetail } from "../envelopes/serialize";
import { listSigners, type SignerRow } from "./repository";

/**
 * A signer's URL. Opaque to partners (spec part 2): they read it from responses. KBA envelopes are
 * signed on the signing host, where the KBA step runs before the document opens; the others on the
 * embed host, whose page can also be framed on the partner's site. The slug is the signer's only
 * credential, so it goes in the path and nowhere else (events and the audit log never carry it).
 */
export function signingUrl(env: Env, envelope: Pick<EnvelopeRow, "kba_required">, slug: string): string {
  const host = envelope.kba_required === 1 ? env.SIGNING_HOST : env.EMBED_HOST;
  return `${host}/s/${slug}`;
}

/** The partner API names the URL `embed_url`, the console `signing_url` (spec part 2). */
export type LinkField = "embed_url" | "signing_url";

export function signingLinks<F extends LinkField>(env: Env, envelope: Pick<EnvelopeRow, "kba_required">, signers: SignerRow[], field: F) {
  return signers.map((s) => ({
    email: s.email,
    name: s.name,
    role: s.role,
    routing_order: s.routing_order,
    slug: s.slug,
    status: s.status,
    ...({ [field]: signingUrl(env, envelope, s.slug) } as Record<F, string>),
  }));
}

/** The answer of a send: the envelope and its signers' links. */
export function sentEnvelopeDetail<F extends LinkField>(env: Env, sent: { envelope: EnvelopeRow; signers: SignerRow[] }, field: F) {
  return { ...envelopeDetail(sent.envelope), signers: signingLinks(env, sent.envelope, sent.signers, field) };
}

/**
 * GET …/signing-links: one link per signer once the envelope has been sent. Before that (and for
 * paper envelopes, which are never sent) there are no signers: 409, as for an embed token asked for
 * an envelope in an incompatible status.
 */
export async function getSigningLinks<F extends LinkField>(ctx: OrgContext, input: { envelopeId: string; field: F }) {
  const envelope = await getEnvelope(ctx.db, ctx.orgId, input.envelopeId);
  const signers = await listSigners(ctx.db, envelope.id);
  if (signers.length === 0) {
    throw conflict(`Signing links exist once the envelope has been sent; this one is ${envelope.status}`, { status: envelope.status });
  }
  return { signers: signingLinks(ctx.env, envelope, signers, input.field) };
}
