/** A tiny element builder: attributes (`on*` functions become listeners), then children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | null | undefined | ((e: Event) => void)> = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

export const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

/** The status line under the bar: read out by screen readers (role=status / aria-live). */
export function notice(message: string, kind: "info" | "error" | "success" = "info") {
  const el = byId("notice");
  el.className = `notice notice-${kind}`;
  el.textContent = message;
  if (kind === "error") el.setAttribute("role", "alert");
  else el.setAttribute("role", "status");
}

export const clearNotice = () => {
  const el = byId("notice");
  el.className = "notice";
  el.textContent = "";
};

/** Replaces the page's main content with a final message (signed, declined, link no longer valid). */
export function finalScreen(heading: string, text: string, kind: "success" | "info" | "error" = "info") {
  const main = byId("main");
  const title = h("h2", { id: "final-title", tabindex: -1 }, heading);
  main.replaceChildren(h("section", { class: `final final-${kind}`, "aria-labelledby": "final-title" }, title, h("p", {}, text)));
  byId("bar").querySelectorAll(".actions").forEach((el) => el.remove());
  clearNotice();
  // a new step: focus on its heading (WCAG 2.4.3), which a screen reader then reads
  title.focus();
}

/** "buyer_phone" -> "Buyer phone": field names become labels a screen reader can say. */
export function humanize(name: string) {
  const words = name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_\-.]+/g, " ").trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Tells the partner page hosting the iframe what happened (no secrets in the message). */
export function tellParent(message: { type: string; envelope_id?: string; [k: string]: unknown }) {
  if (window.parent !== window) window.parent.postMessage({ source: "esign-vault", ...message }, "*");
}
