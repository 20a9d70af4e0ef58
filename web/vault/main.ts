import { ApiFailure, fetchBytes } from "../shared/api";
import { byId, finalScreen, h, humanize, notice } from "../shared/dom";
import { embedFailureText, openEmbedSession, takeEmbedToken } from "../shared/embed";
import { loadPdfViewer } from "../shared/pdf-loader";

type VaultSession = {
  envelope_id: string;
  envelope_name: string;
  envelope_status: string;
  vault: null | {
    sha256: string;
    vaulted_at: string;
    certificate: Record<string, unknown>;
    download: null | { url: string; expires_at: string };
    certificate_download: { url: string; expires_at: string };
    compliance: { compliant: boolean; score: number };
    record: VaultRecord;
  };
};

type VaultRecord = {
  vault_id: string;
  status: "active" | "paid_off" | "paper_out" | "destroyed";
  closed_at: string | null;
  retain_until: string | null;
  auto_destroy: boolean;
  destroyed_at: string | null;
  holds: { hold_id: string; placed_by_org_id: string | null; placed_by_name: string | null; reason: string; reference: string | null; placed_at: string }[];
};

/**
 * The vault widget: the vaulted (authoritative) copy of one envelope, its SHA-256, the certificate
 * and a download, for a partner page that embeds it with a `vault` embed token.
 */
async function start() {
  const envelopeId = document.body.dataset.envelopeId ?? "";
  const token = takeEmbedToken("vault", envelopeId);
  if (!token) return finalScreen("Link incomplete", "This page was opened without its secure token. Go back to the site that sent you here and open it again.", "error");
  let session: VaultSession;
  try {
    session = await openEmbedSession<VaultSession>("vault", envelopeId, token);
  } catch (err) {
    const f = err instanceof ApiFailure ? err : new ApiFailure(0, "Something went wrong while opening the vault.");
    return finalScreen("Cannot open the vault", embedFailureText(f.status, f.message), "error");
  }
  byId("title").textContent = session.envelope_name;
  document.title = `${session.envelope_name} · Vault`;
  const main = byId("main");
  const vault = session.vault;
  if (!vault) {
    return finalScreen("Not in the vault yet", `This document is not vaulted yet. Its status is ${session.envelope_status}.`, "info");
  }
  const summary = h(
    "section",
    { class: "vault-summary", "aria-labelledby": "vault-heading" },
    h("h2", { id: "vault-heading" }, "Authoritative copy"),
    h(
      "dl",
      {},
      h("dt", {}, "Status"),
      h("dd", {}, vault.compliance.compliant ? "Vaulted · compliant" : "Vaulted · NOT compliant"),
      h("dt", {}, "Compliance score"),
      h("dd", {}, vault.compliance.score.toFixed(2)),
      h("dt", {}, "Vaulted at"),
      h("dd", {}, new Date(vault.vaulted_at).toLocaleString()),
      h("dt", {}, "SHA-256"),
      h("dd", { class: "hash", id: "vault-sha256" }, vault.sha256),
    ),
    vault.download
      ? h("a", { class: "button primary", id: "vault-download", href: vault.download.url, download: "" }, "Download the authoritative copy")
      : h("p", { class: "notice notice-error", id: "vault-destroyed" }, `Destroyed on ${when(vault.record.destroyed_at)}: its files were deleted; its SHA-256, audit chain and certificate remain.`),
  );
  const certificate = h(
    "section",
    { class: "certificate", "aria-labelledby": "cert-heading" },
    h("h2", { id: "cert-heading" }, "Certificate"),
    h("a", { class: "button", id: "vault-certificate-download", href: vault.certificate_download.url, download: "" }, "Download the certificate (PDF)"),
    describe(vault.certificate),
  );
  const doc = h("div", { class: "document", "aria-label": "The vaulted document" });
  main.replaceChildren(h("div", { class: "vault-layout" }, h("div", { class: "vault-side" }, summary, retention(vault.record), certificate), doc));
  if (!vault.compliance.compliant) notice("Not every UCC §9-105 check is satisfied for this copy: see the certificate for the ones that fail.", "error");
  if (!vault.download) return doc.replaceChildren(h("p", {}, "This record was destroyed: there is no document to preview."));
  try {
    const [{ renderPdf }, bytes] = await Promise.all([loadPdfViewer(), fetchBytes(vault.download.url)]);
    await renderPdf(doc, bytes, "Vaulted page");
  } catch (err) {
    doc.replaceChildren(h("p", { class: "notice notice-error" }, `The preview could not be shown (${err instanceof Error ? err.message : "error"}); the download still works.`));
  }
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "—");

const STATUS: Record<VaultRecord["status"], string> = { active: "Open", paid_off: "Paid off", paper_out: "Converted to paper", destroyed: "Destroyed" };

/** How long the record is kept, whether it may be destroyed by itself, and the legal holds that stop that. */
function retention(record: VaultRecord): Node {
  const keptUntil =
    record.status === "destroyed"
      ? `Destroyed on ${when(record.destroyed_at)}`
      : record.retain_until
        ? when(record.retain_until)
        : "Kept while open: the retention period starts when it is paid off or converted to paper";
  const holds = record.holds.length
    ? h(
        "table",
        { id: "vault-holds" },
        h("caption", {}, "Legal holds in force"),
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Placed by"), h("th", { scope: "col" }, "Reason"), h("th", { scope: "col" }, "Reference"), h("th", { scope: "col" }, "Since"))),
        h(
          "tbody",
          {},
          ...record.holds.map((hold) =>
            h("tr", {}, h("td", {}, hold.placed_by_name ?? "The service operator"), h("td", {}, hold.reason), h("td", {}, hold.reference ?? "—"), h("td", {}, when(hold.placed_at))),
          ),
        ),
      )
    : h("p", { id: "vault-holds" }, "No legal hold is in force.");
  return h(
    "section",
    { class: "retention", "aria-labelledby": "retention-heading" },
    h("h2", { id: "retention-heading" }, "Retention and legal holds"),
    h(
      "dl",
      {},
      h("dt", {}, "Record"),
      h("dd", {}, STATUS[record.status]),
      h("dt", {}, "Kept until"),
      h("dd", { id: "vault-retain-until" }, keptUntil),
      h("dt", {}, "Automatic destruction"),
      h(
        "dd",
        {},
        record.auto_destroy
          ? "On: the controller's policy destroys it once the retention period passes, unless a legal hold keeps it"
          : "Off: it is destroyed only by the controller, after the retention period",
      ),
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
