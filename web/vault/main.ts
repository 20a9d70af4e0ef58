import { ApiFailure, fetchBytes } from "../shared/api";
import { byId, finalScreen, h, humanize, notice } from "../shared/dom";
import { embedFailureText, openEmbedSession, takeEmbedToken } from "../shared/embed";
import { loadPdfViewer } from "../shared/pdf-loader";
import { formatDate, locale, setLocale, t } from "../i18n";
import type { PageMessages } from "../i18n/catalogs";
import type { components } from "../../packages/sdk/src/schema";

type VaultSession = components["schemas"]["EmbedVaultSession"];
/** The generated SDK type (a pure type import: nothing of the SDK or the server is bundled into the page). */
type VaultRecord = components["schemas"]["EmbedVaultRecord"];

/**
 * The vault widget: the vaulted (authoritative) copy of one envelope, its SHA-256, the certificate
 * and a download, for a partner page that embeds it with a `vault` embed token.
 */
async function start() {
  // the shell's language (the organization's) until the session names the widget's
  setLocale(document.documentElement.lang);
  const envelopeId = document.body.dataset.envelopeId ?? "";
  const token = takeEmbedToken("vault", envelopeId);
  if (!token) return finalScreen(t("link_incomplete"), t("link_incomplete_text"), "error");
  let session: VaultSession;
  try {
    session = await openEmbedSession<VaultSession>("vault", envelopeId, token);
  } catch (err) {
    const f = err instanceof ApiFailure ? err : new ApiFailure(0, t("vault_error_opening"));
    return finalScreen(t("vault_cannot_open"), embedFailureText(f.status, f.message), "error");
  }
  setLocale(session.locale);
  byId("title").textContent = session.envelope_name;
  document.title = t("vault_page_title_of", { name: session.envelope_name });
  const main = byId("main");
  const vault = session.vault;
  if (!vault) {
    return finalScreen(t("vault_not_yet"), t("vault_not_yet_text", { status: session.envelope_status }), "info");
  }
  const summary = h(
    "section",
    { class: "vault-summary", "aria-labelledby": "vault-heading" },
    h("h2", { id: "vault-heading" }, t("vault_heading")),
    h(
      "dl",
      {},
      h("dt", {}, t("vault_status")),
      h("dd", {}, vault.compliance.compliant ? t("vault_compliant") : t("vault_not_compliant")),
      h("dt", {}, t("vault_score")),
      h("dd", {}, vault.compliance.score.toLocaleString(locale(), { minimumFractionDigits: 2, maximumFractionDigits: 2 })),
      h("dt", {}, t("vault_vaulted_at")),
      h("dd", {}, when(vault.vaulted_at)),
      h("dt", {}, "SHA-256"),
      h("dd", { class: "hash", id: "vault-sha256" }, vault.sha256),
    ),
    vault.download
      ? h("a", { class: "button primary", id: "vault-download", href: vault.download.url, download: "" }, t("vault_download"))
      : h("p", { class: "notice notice-error", id: "vault-destroyed" }, t("vault_destroyed_files", { date: when(vault.record.destroyed_at) })),
  );
  const certificate = h(
    "section",
    { class: "certificate", "aria-labelledby": "cert-heading" },
    h("h2", { id: "cert-heading" }, t("vault_certificate")),
    h("a", { class: "button", id: "vault-certificate-download", href: vault.certificate_download.url, download: "" }, t("vault_certificate_download")),
    // the certificate is an English record (its PDF too): said so, and marked as English for screen readers (WCAG 3.1.2)
    ...(locale() === "en" ? [] : [h("p", {}, t("vault_certificate_language"))]),
    h("div", { lang: "en" }, describe(vault.certificate)),
  );
  // a labelled region (a bare div may not carry aria-label: axe flags it while the pages are still loading)
  const doc = h("div", { class: "document", role: "region", "aria-label": t("vault_document_label") });
  main.replaceChildren(h("div", { class: "vault-layout" }, h("div", { class: "vault-side" }, summary, retention(vault.record), certificate), doc));
  if (!vault.compliance.compliant) notice(t("vault_checks_fail"), "error");
  if (!vault.download) return doc.replaceChildren(h("p", {}, t("vault_no_preview")));
  try {
    const [{ renderPdf }, bytes] = await Promise.all([loadPdfViewer(), fetchBytes(vault.download.url)]);
    await renderPdf(doc, bytes, t("vault_page_label"));
  } catch (err) {
    doc.replaceChildren(h("p", { class: "notice notice-error" }, t("vault_preview_failed", { reason: err instanceof Error ? err.message : t("vault_preview_error") })));
  }
}

/** A date and time as the widget's language writes it. */
const when = (iso: string | null) => (iso ? formatDate(iso, true) : "—");

const STATUS: Record<VaultRecord["status"], keyof PageMessages> = {
  active: "vault_record_active",
  paid_off: "vault_record_paid_off",
  paper_out: "vault_record_paper_out",
  destroyed: "vault_record_destroyed",
};

/** How long the record is kept, whether it may be destroyed by itself, and the legal holds that stop that. */
function retention(record: VaultRecord): Node {
  const keptUntil =
    record.status === "destroyed"
      ? t("vault_destroyed_on", { date: when(record.destroyed_at) })
      : record.retain_until
        ? when(record.retain_until)
        : t("vault_kept_while_open");
  const holds = record.holds.length
    ? h(
        "table",
        { id: "vault-holds" },
        h("caption", {}, t("vault_holds")),
        h(
          "thead",
          {},
          h("tr", {}, ...(["vault_hold_by", "vault_hold_reason", "vault_hold_reference", "vault_hold_since"] as const).map((key) => h("th", { scope: "col" }, t(key)))),
        ),
        h(
          "tbody",
          {},
          ...record.holds.map((hold) =>
            h("tr", {}, h("td", {}, hold.placed_by_name ?? t("vault_hold_operator")), h("td", {}, hold.reason), h("td", {}, hold.reference ?? "—"), h("td", {}, when(hold.placed_at))),
          ),
        ),
      )
    : h("p", { id: "vault-holds" }, t("vault_no_holds"));
  return h(
    "section",
    { class: "retention", "aria-labelledby": "retention-heading" },
    h("h2", { id: "retention-heading" }, t("vault_retention")),
    h(
      "dl",
      {},
      h("dt", {}, t("vault_record")),
      h("dd", {}, t(STATUS[record.status])),
      h("dt", {}, t("vault_kept_until")),
      h("dd", { id: "vault-retain-until" }, keptUntil),
      h("dt", {}, t("vault_auto_destroy")),
      h("dd", {}, record.auto_destroy ? t("vault_auto_destroy_on") : t("vault_auto_destroy_off")),
    ),
    holds,
  );
}

/** The certificate as a definition list (nested objects nested, lists of objects as sub-lists). */
function describe(value: unknown): Node {
  if (value === null || value === undefined) return document.createTextNode("—");
  if (Array.isArray(value)) {
    if (value.length === 0) return document.createTextNode("none");
    return h("ul", {}, ...value.map((v) => h("li", {}, describe(v))));
  }
  if (typeof value === "object") {
    const dl = h("dl", {});
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) dl.append(h("dt", {}, humanize(k)), h("dd", {}, describe(v)));
    return dl;
  }
  return document.createTextNode(String(value));
}

void start();
