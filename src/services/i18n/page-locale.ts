import { onShardOf, type RequestContext } from "../../lib/context";
import type { Locale } from "../../db/schema/locales";

/**
 * The language of the HTML a signer's link or a signing widget opens with: its envelope's `locale`, so
 * the title and "Loading…" are already in it before the page's script reads the state. `en` when the
 * link names no one (the page then shows the API's error in the browser's language).
 */
export async function pageLocaleFor(ctx: RequestContext, ref: { envelopeId: string } | { signerId: string }): Promise<Locale> {
  const id = "envelopeId" in ref ? ref.envelopeId : ref.signerId;
  const shard = onShardOf(ctx, id).db;
  // SQL exception: one indexed read on the record's shard, outside a repository like frame-ancestors.ts's, for the page route alone
  const row = await ("envelopeId" in ref
    ? shard.prepare("SELECT locale FROM envelopes WHERE id = ?").bind(ref.envelopeId)
    : shard.prepare("SELECT e.locale FROM signers s JOIN envelopes e ON e.id = s.envelope_id WHERE s.id = ?").bind(ref.signerId)
  ).first<{ locale: Locale | null }>();
  return row?.locale === "es" ? "es" : "en";
}
