import { onShardOf, type RequestContext } from "../../lib/context";
import type { Locale } from "../../db/schema/locales";
import { findEnvelopeLocale } from "./repository";

/**
 * The language of the HTML a signer's link or a signing widget opens with: its envelope's `locale`, so
 * the title and "Loading…" are already in it before the page's script reads the state. `en` when the
 * link names no one (the page then shows the API's error in the browser's language). One indexed read on
 * the record's shard, which the id names.
 */
export async function pageLocaleFor(ctx: RequestContext, ref: { envelopeId: string } | { signerId: string }): Promise<Locale> {
  const locale = await findEnvelopeLocale(onShardOf(ctx, "envelopeId" in ref ? ref.envelopeId : ref.signerId).db, ref);
  return locale === "es" ? "es" : "en";
}
