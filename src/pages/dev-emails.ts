import { escapeHtml } from "../lib/html";
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

/** The outbox as a page: newest first, each email's text and its link. No script, inline style only. */
export function devEmailsPage(emails: ListedEmail[], limit: number): string {
  const body = emails.length ? `<ol>\n${emails.map(emailItem).join("\n")}\n</ol>` : "<p>No emails yet. Send an envelope and reload.</p>";
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <title>Email outbox (dev)</title>
  <style>
    body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:52rem;padding:1rem;line-height:1.4}
    ol{list-style:none;padding:0} li{border:1px solid #ccc;border-radius:6px;margin:0 0 1rem;padding:0 1rem}
    h2{font-size:1.1rem} .meta{color:#555;font-size:.9rem} .error{color:#a00}
    pre{white-space:pre-wrap;background:#f6f6f6;padding:.75rem;border-radius:4px}
  </style>
</head>
<body>
  <h1>Email outbox</h1>
  <p>Development only (DEV_PAGES=true). The newest ${limit} emails of every organization; nothing here was delivered unless its status says <b>sent</b>.</p>
  ${body}
</body>
</html>`;
}
