import type { Env } from "../../env";
import type { OrgContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { shardOf } from "../../lib/shards";
import { mintSigningSession } from "./signing-session";
import { getEnvelope, type EnvelopeRow } from "../envelopes/repository";
import { envelopeDetail } from "../envelopes/serialize";
import { listSigners, type SignerRow } from "./repository";
import { hashSlug, newSlug } from "./slug";

/**
 * A signer's URL. Opaque to partners (spec part 2): they read it from responses. KBA envelopes are
 * signed on the signing host, where the KBA step runs before the document opens; the others on the
 * embed host, whose page can also be framed on the partner's site. `credential` is the permanent slug
 * (only ever in the invitation email) or a signing session; it goes in the path and nowhere else
 * (events and the audit log never carry it).
 */
export function signingUrl(env: Env, envelope: Pick<EnvelopeRow, "kba_required">, credential: string): string {
  const host = envelope.kba_required === 1 ? env.SIGNING_HOST : env.EMBED_HOST;
  return `${host}/s/${credential}`;
}

/**
 * A new permanent link for a signer (an invitation, a reminder, a re-sent invitation): a fresh slug, the
 * hash the signer row stores (the old link dies when it is replaced) and the URL the email carries.
 * The slug is tagged with the envelope's shard, where the signer row is.
 */
export async function freshSigningLink(env: Env, envelope: Pick<EnvelopeRow, "id" | "kba_required">): Promise<{ slugHash: string; url: string }> {
  // the slug names the shard of the signer's row, which is its envelope's
  const slug = newSlug(shardOf(envelope.id));
  return { slugHash: await hashSlug(slug), url: signingUrl(env, envelope, slug) };
}

/** How long a signing link handed to a partner or the console works: as long as an embed token. */
export const SIGNING_LINK_TTL_SECONDS = 900;

/** The partner API names the URL `embed_url`, the console `signing_url` (spec part 2). */
export type LinkField = "embed_url" | "signing_url";

/**
 * The signers' links as API responses give them: each a signing session of 15 minutes, never the
 * permanent slug (that goes only into the invitation email, and the database keeps only its hash).
 * Whoever can read an envelope can open its signing page for a while, as with an embed token, but
 * holds no credential that outlives the response. `slug` is the session itself (the spec keeps the
 * field; it works wherever a slug does), `expires_at` when it ends.
 */
export async function signingLinks<F extends LinkField>(env: Env, envelope: Pick<EnvelopeRow, "kba_required">, signers: SignerRow[], field: F, opts: { viewOnly?: boolean; now?: number } = {}) {
  const expiresAt = Math.floor((opts.now ?? Date.now()) / 1000) + SIGNING_LINK_TTL_SECONDS;
  return Promise.all(
    signers.map(async (s) => {
      const session = await mintSigningSession(env, { signerId: s.id, expiresAt, viewOnly: opts.viewOnly });
      return {
        signer_id: s.id,
        email: s.email,
        name: s.name,
        role: s.role,
        routing_order: s.routing_order,
        slug: session,
        status: s.status,
        ...({ [field]: signingUrl(env, envelope, session) } as Record<F, string>),
        expires_at: new Date(expiresAt * 1000).toISOString(),
        view_only: opts.viewOnly === true,
      };
    }),
  );
}

/** The answer of a send: the envelope and its signers' links. */
export async function sentEnvelopeDetail<F extends LinkField>(env: Env, sent: { envelope: EnvelopeRow; signers: SignerRow[] }, field: F) {
  return { ...envelopeDetail(sent.envelope), signers: await signingLinks(env, sent.envelope, sent.signers, field) };
}

/**
 * GET …/signing-links: one link per signer once the envelope has been sent. Before that (and for
 * paper envelopes, which are never sent) there are no signers: 409, as for an embed token asked for
 * an envelope in an incompatible status. `viewOnly`: the caller may read envelopes but not sign for
 * anyone (an API key without `esign:write`): every link is a view-only session
 * (docs/decisions/view-only-sessions.md).
 */
export async function getSigningLinks<F extends LinkField>(ctx: OrgContext, input: { envelopeId: string; field: F; viewOnly?: boolean }) {
  const envelope = await getEnvelope(ctx.db, ctx.orgId, input.envelopeId);
  const signers = await listSigners(ctx.db, envelope.id);
  if (signers.length === 0) {
    throw conflict(`Signing links exist once the envelope has been sent; this one is ${envelope.status}`, { status: envelope.status });
  }
  return { signers: await signingLinks(ctx.env, envelope, signers, input.field, { viewOnly: input.viewOnly }) };
}
