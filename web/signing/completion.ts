import { formatDate, t } from "../i18n";
import { callApi } from "../shared/api";
import { byId, finalScreen, h } from "../shared/dom";
import type { CopyLink, PageState } from "./types";

/**
 * The signer's copy (E-SIGN §7001(e), docs/consumer-signing.md): once the envelope completes, the signer's own
 * link shows a "Download your copy" link to the sealed PDF for 30 days (the same link the
 * `completed_copy` email carries), saying until when it is available.
 */


/** The completion screen: a final message, then the copy's download when there is one. */
export function completionScreen(heading: string, text: string, copy: CopyLink | null | undefined, name: string, withoutCopy: string) {
  finalScreen(heading, text, "success");
  const section = byId("main").querySelector(".final");
  if (!section) return;
  if (copy) {
    section.append(
      h(
        "div",
        { class: "copy", id: "copy" },
        h("a", { class: "button primary", id: "copy-download", href: copy.url, download: `${name.replace(/[\\/:*?"<>|]+/g, " ").trim() || "document"}.pdf` }, t("copy_download")),
        h("p", { class: "copy-until", id: "copy-until" }, t("copy_until", { date: formatDate(copy.expires_at) })),
      ),
    );
  } else {
    section.append(h("p", { class: "copy-until" }, withoutCopy));
  }
}

/**
 * After the submit that completed the envelope, reads the state again until it carries the copy
 * (the sealed PDF is ready within the same request, but allow a moment); null if it never appears.
 */
export async function awaitCopy(api: string, attempts = 6): Promise<CopyLink | null> {
  for (let i = 0; i < attempts; i++) {
    try {
      const state = await callApi<PageState>(api);
      if (state.copy) return state.copy;
    } catch {
      /* a 410 while the copy is prepared, or a network blip: try again */
    }
    await new Promise((r) => setTimeout(r, 400 * (i + 1)));
  }
  return null;
}
