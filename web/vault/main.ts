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
    download: { url: string; expires_at: string };
    certificate_download: { url: string; expires_at: string };
    compliance: { compliant: boolean; score: number };
  };
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
    h("a", { class: "button primary", id: "vault-download", href: vault.download.url, download: "" }, "Download the authoritative copy"),
  );
  const certificate = h(
    "section",
    { class: "certificate", "aria-labelledby": "cert-heading" },
    h("h2", { id: "cert-heading" }, "Certificate"),
    h("a", { class: "button", id: "vault-certificate-download", href: vault.certificate_download.url, download: "" }, "Download the certificate (PDF)"),
    describe(vault.certificate),
  );
  const doc = h("div", { class: "document", "aria-label": "The vaulted document" });
  main.replaceChildren(h("div", { class: "vault-layout" }, h("div", { class: "vault-side" }, summary, certificate), doc));
  if (!vault.compliance.compliant) notice("Not every UCC §9-105 check is satisfied for this copy: see the certificate for the ones that fail.", "error");
  try {
    const [{ renderPdf }, bytes] = await Promise.all([loadPdfViewer(), fetchBytes(vault.download.url)]);
    await renderPdf(doc, bytes, "Vaulted page");
  } catch (err) {
    doc.replaceChildren(h("p", { class: "notice notice-error" }, `The preview could not be shown (${err instanceof Error ? err.message : "error"}); the download still works.`));
  }
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
