import type { Locale } from "../../db/schema/locales";
import { onShardOf, type RequestContext } from "../../lib/context";
import { findOrgDefaultLocale } from "../organizations/repository";

/**
 * The language of the HTML the vault widget opens with, before its script reads the session (whose
 * `locale` the embed token may set): the envelope's organization's `default_locale`, so the title and
 * "Loading…" are in it from the start. `en` for an envelope that does not exist.
 */
export async function vaultPageLocaleFor(ctx: RequestContext, ref: { envelopeId: string }): Promise<Locale> {
  // SQL exception: the record's organization on the record's shard (its id names it), as frameAncestorsFor reads it
  const owner = await onShardOf(ctx, ref.envelopeId).db.prepare("SELECT org_id FROM envelopes WHERE id = ?").bind(ref.envelopeId).first<{ org_id: string }>();
  return owner ? findOrgDefaultLocale(ctx.global, owner.org_id) : "en";
}
