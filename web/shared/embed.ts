import { t } from "../i18n";
import { callApi } from "./api";

/**
 * The embed token arrives in the URL fragment (`#token=…`), which the browser never sends to a
 * server. It is taken out of the address bar at once (so it is not bookmarked or copied), kept in
 * this tab's sessionStorage so a reload still works until it expires, and sent to the API only in an
 * Authorization header.
 */
export function takeEmbedToken(widget: string, envelopeId: string): string | null {
  const key = `esign-embed:${widget}:${envelopeId}`;
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  const storage = sessionStorageOrNull();
  if (match) {
    const token = decodeURIComponent(match[1]!);
    storage?.setItem(key, token);
    return token;
  }
  return storage?.getItem(key) ?? null;
}

function sessionStorageOrNull(): Storage | null {
  try {
    return window.sessionStorage; // may throw in a third-party iframe with storage blocked
  } catch {
    return null;
  }
}

export function openEmbedSession<T>(widget: "sign" | "vault", envelopeId: string, token: string) {
  return callApi<T>("/api/v2/embed/session", {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    json: { widget_type: widget, envelope_id: envelopeId },
  });
}

/** What the signer or viewer should read for a refused embed session. */
export function embedFailureText(status: number, message: string) {
  if (status === 401) return t("embed_expired");
  return message;
}
