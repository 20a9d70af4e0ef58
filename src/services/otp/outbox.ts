import type { RequestContext } from "../../lib/context";
import { openText } from "../../lib/sealed-text";
import { boundShards } from "../../lib/shards";
import { onEveryShard } from "../shards/fan-out";
import { listRecentSmsOutbox, type SmsOutboxRow } from "./repository";
import { SMS_BODY_LABEL } from "./code";

export type ListedSms = { row: SmsOutboxRow; body: string | null };

/**
 * The newest text messages of every organization, for GET /dev/sms (development only). `body` is the
 * message opened from its seal: only the outbox provider keeps it, and only under the current
 * EMBED_TOKEN_SECRET; otherwise null.
 */
export async function listRecentSms(ctx: RequestContext, input: { limit: number }): Promise<ListedSms[]> {
  const perShard = await onEveryShard(ctx, boundShards(ctx.env), (shard) => listRecentSmsOutbox(shard.db, input.limit));
  const rows = perShard
    .flat()
    .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))
    .slice(0, input.limit);
  const secret = ctx.env.EMBED_TOKEN_SECRET;
  return Promise.all(
    rows.map(async (row) => ({
      row,
      body: row.body_sealed && secret ? await openText({ secret, label: SMS_BODY_LABEL, context: row.id, sealed: row.body_sealed }) : null,
    })),
  );
}
