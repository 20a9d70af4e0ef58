import { escapeHtml } from "../lib/html";
import type { ListedSms } from "../services/otp/outbox";

function smsItem({ row, body }: ListedSms): string {
  const error = row.error ? `<p class="error">${escapeHtml(row.error)}</p>` : "";
  const text = body ?? (row.body_sealed ? "(sealed under another EMBED_TOKEN_SECRET)" : "(not kept: sent through a provider)");
  return `<li>
  <article aria-label="Text to ${escapeHtml(row.to_masked)}">
    <p class="meta">To ${escapeHtml(row.to_masked)} · ${escapeHtml(row.provider)} · <span class="status">${escapeHtml(row.status)}</span> · <time datetime="${escapeHtml(row.created_at)}">${escapeHtml(row.created_at)}</time> · envelope ${escapeHtml(row.envelope_id)} · signer ${escapeHtml(row.signer_id)}</p>
    ${error}
    <pre>${escapeHtml(text)}</pre>
  </article>
</li>`;
}

/** The SMS outbox as a page: newest first, each text as the signer would read it. No script, inline style only. */
export function devSmsPage(messages: ListedSms[], limit: number): string {
  const body = messages.length ? `<ol>\n${messages.map(smsItem).join("\n")}\n</ol>` : "<p>No text messages yet. Ask for a code on a signing page and reload.</p>";
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <title>SMS outbox (dev)</title>
  <style>
    body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:52rem;padding:1rem;line-height:1.4}
    ol{list-style:none;padding:0} li{border:1px solid #ccc;border-radius:6px;margin:0 0 1rem;padding:0 1rem}
    .meta{color:#555;font-size:.9rem} .error{color:#a00}
    pre{white-space:pre-wrap;background:#f6f6f6;padding:.75rem;border-radius:4px}
  </style>
</head>
<body>
  <h1>SMS outbox</h1>
  <p>Development only (DEV_PAGES=true). The newest ${limit} text messages (one-time passcodes) of every organization; nothing here left the service unless its status says <b>sent</b>.</p>
  ${body}
</body>
</html>`;
}
