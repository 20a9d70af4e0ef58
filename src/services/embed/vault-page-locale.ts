import type { Locale } from "../../db/schema/locales";
import { onShardOf, type RequestContext } from "../../lib/context";
import { findOrgDefaultLocale } from "../organizations/repository";
import { findRecordOwner } from "../envelopes/repository";

/**
 * The language of the HTML the vault widget opens with, before its script reads the session (whose
 * `locale` the embed token may set): the envelope's organization's `default_locale`, so the title and
 * "Loading…" are in it from the start. `en` for an envelope that does not exist.
 */
export async function vaultPageLocaleFor(ctx: RequestContext, ref: { envelopeId: string }): Promise<Locale> {
  // the record's organization on the record's shard (its id names it), then its default from the global database
  const owner = await findRecordOwner(onShardOf(ctx, ref.envelopeId).db, ref);
  return owner ? findOrgDefaultLocale(ctx.global, owner) : "en";
}
