import { escapeHtml } from "../lib/html";
import { devOutboxPage } from "./dev-outbox";
import { withheldUrl } from "../services/email/link-at-rest";
import type { OpenedEmail, OutboxRow } from "../services/email/outbox";

type ListedEmail = { row: OutboxRow; opened: OpenedEmail | null };

/** The link as the email carries it; a delivered email's stays withheld (`…/s/[slug]`), a seal that does not open is named. */
function linkOf({ row, opened }: ListedEmail): string {
  if (!opened) return `<p class="error">The link is sealed under another EMBED_TOKEN_SECRET: it cannot be opened, and the email cannot go out.</p>`;
  if (!opened.linkUrl) return "";
  if (row.link_sealed === null && withheldUrl(opened.linkUrl) === opened.linkUrl) {
    return `<p class="link">${escapeHtml(opened.linkUrl)} (withheld: the email was delivered, or never will be)</p>`;
  }
  return `<p class="link"><a href="${escapeHtml(opened.linkUrl)}">${escapeHtml(opened.linkUrl)}</a></p>`;
}

function emailItem(listed: ListedEmail): string {
  const e = listed.row;
  const link = linkOf(listed);
  const error = e.error ? `<p class="error">${escapeHtml(e.error)}</p>` : "";
  return `<li>
  <article aria-label="${escapeHtml(e.subject)}">
    <h2>${escapeHtml(e.subject)}</h2>
    <p class="meta">To ${escapeHtml(e.to_name)} &lt;${escapeHtml(e.to_email)}&gt; · ${escapeHtml(e.kind)} · <span class="status">${escapeHtml(e.status)}</span> · <time datetime="${escapeHtml(e.created_at)}">${escapeHtml(e.created_at)}</time> · envelope ${escapeHtml(e.envelope_id ?? "none")}</p>
    ${link}${error}
    <pre>${escapeHtml(listed.opened?.text ?? e.text)}</pre>
  </article>
</li>`;
}

/** The outbox as a page: newest first, each email's text and its link. */
export function devEmailsPage(emails: ListedEmail[], limit: number): string {
  return devOutboxPage({
    title: "Email outbox",
    intro: `Development only (DEV_PAGES=true). The newest ${limit} emails of every organization; nothing here was delivered unless its status says <b>sent</b>.`,
    items: emails.map(emailItem),
    empty: "No emails yet. Send an envelope and reload.",
  });
}
