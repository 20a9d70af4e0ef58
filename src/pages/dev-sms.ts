import { escapeHtml } from "../lib/html";
import type { ListedSms } from "../services/otp/outbox";
import { devOutboxPage } from "./dev-outbox";

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

/** The SMS outbox as a page: newest first, each text as the signer would read it. */
export function devSmsPage(messages: ListedSms[], limit: number): string {
  return devOutboxPage({
    title: "SMS outbox",
    intro: `Development only (DEV_PAGES=true). The newest ${limit} text messages (one-time passcodes) of every organization; nothing here left the service unless its status says <b>sent</b>.`,
    items: messages.map(smsItem),
    empty: "No text messages yet. Ask for a code on a signing page and reload.",
  });
}
