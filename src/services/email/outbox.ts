import type { Env } from "../../env";
import type { RequestContext } from "../../lib/context";
import type { EmailKind } from "../../db/schema";
import { boundShards, newShardId } from "../../lib/shards";
import { onEveryShard } from "../shards/fan-out";
import type { OutboxEmail } from "../../providers/email";
import { restoreLink, withholdLink } from "./link-at-rest";
import { emailOutboxInsert, emailOutboxInsertIf, listRecentOutbox, type OutboxRow } from "./repository";

export type { OutboxRow } from "./repository";

export type NewEmail = {
  orgId: string;
  envelopeId: string | null;
  signerId: string | null;
  kind: EmailKind;
  to: { email: string; name: string };
  subject: string;
  text: string;
  html: string;
  /** the email's call to action, as `text` and `html` carry it; stored withheld and sealed (./link-at-rest.ts) */
  linkUrl: string | null;
  at: string;
};

/**
 * The INSERT of one email into the outbox, for the batch of the change that causes it, and the email
 * as the transport receives it. The row keeps the email with its link withheld and the link sealed,
 * so reading the database hands out no signing link. A second email of the same kind to the same
 * signer is skipped (unique index); `RETURNING id` then yields no row, which is how a caller learns
 * whether this statement queued anything.
 */
export async function queueEmail(
  ctx: RequestContext,
  input: NewEmail,
  /** queue it only while this holds (reminders: ../../jobs/send-reminders.ts; `emailOutboxInsertIf`) */
  only?: Parameters<typeof emailOutboxInsertIf>[2],
): Promise<{ email: OutboxEmail; statement: D1PreparedStatement }> {
  const { env } = ctx;
  // the email lives on the shard of the change that queues it (ctx.db), its id names that shard
  const email: OutboxEmail = { id: newShardId("email", ctx.shardId), kind: input.kind, to: input.to, subject: input.subject, text: input.text, html: input.html };
  const stored = input.linkUrl
    ? await withholdLink(env, { emailId: email.id, url: input.linkUrl, text: input.text, html: input.html })
    : { text: input.text, html: input.html, linkShown: null, linkSealed: null };
  const row = {
    id: email.id,
    orgId: input.orgId,
    envelopeId: input.envelopeId,
    signerId: input.signerId,
    kind: input.kind,
    to: input.to,
    subject: input.subject,
    text: stored.text,
    html: stored.html,
    linkShown: stored.linkShown,
    linkSealed: stored.linkSealed,
    at: input.at,
  };
  const statement = only ? emailOutboxInsertIf(ctx.db, row, only) : emailOutboxInsert(ctx.db, row);
  return { email, statement };
}

export type OpenedEmail = { text: string; html: string; linkUrl: string | null };

/**
 * A stored email as it goes out: its sealed link opened and put back. A row without a seal is the
 * email as stored (no link; a delivered one, whose link stays withheld; or one written before links
 * were sealed). Null when the seal does not open under the current EMBED_TOKEN_SECRET.
 */
export async function openOutboxEmail(env: Env, row: Pick<OutboxRow, "id" | "text" | "html" | "link_url" | "link_sealed">): Promise<OpenedEmail | null> {
  if (row.link_sealed === null || row.link_url === null) return { text: row.text, html: row.html, linkUrl: row.link_url };
  const opened = await restoreLink(env, { emailId: row.id, text: row.text, html: row.html, linkShown: row.link_url, linkSealed: row.link_sealed });
  return opened && { text: opened.text, html: opened.html, linkUrl: opened.url };
}

/**
 * The newest emails of every organization with their links opened, for the dev page (never reachable
 * in production). `opened` is null for a row whose seal does not open. Every shard this deployment
 * binds is read (each email lives with its envelope), newest first over all of them.
 */
export async function listRecentEmails(ctx: RequestContext, input: { limit: number }): Promise<{ row: OutboxRow; opened: OpenedEmail | null }[]> {
  const limit = input.limit;
  const perShard = await onEveryShard(ctx, boundShards(ctx.env), (shard) => listRecentOutbox(shard.db, limit));
  const results = perShard
    .flat()
    .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.created_at < b.created_at ? 1 : -1))
    .slice(0, limit);
  return Promise.all(results.map(async (row) => ({ row, opened: await openOutboxEmail(ctx.env, row) })));
}
