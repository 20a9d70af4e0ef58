import { badRequest, conflict } from "../../lib/errors";
import type { MultipartForm } from "../../lib/multipart";
import { nowIso } from "../../lib/time";
import { signingProvider, viaProvider } from "../../providers/signing";
import { commitWithOrgAudit } from "../audit/org-chain";
import type { OrgContext } from "../../lib/context";
import { discardDocuments, ingestPdf } from "../documents/ingest-pdf";
import { pageSizesText } from "../documents/repository";
import { getTemplate, insertTemplateFields, listTemplateFields, templateDocumentUpdate, type TemplateRow } from "./repository";
import { templateDetail } from "./serialize";

/**
 * PUT /templates/:id/document (console): gives a template created without a document (POST
 * /templates) its PDF, embedded tags honoured, once. The UPDATE is guarded on the template still
 * having no document, so two racing uploads cannot both win.
 */
export async function attachTemplateDocument(ctx: OrgContext, input: { templateId: string; form: MultipartForm }) {
  // the organization's templates only (global, with their org-chain entry); a builder working copy is not found here
  const db = ctx.global;
  const template = await getTemplate(db, ctx.orgId, input.templateId);
  if (template.document_key) throw conflict("The template already has a document; create a new template for another PDF", { template_id: template.id });
  if (!input.form.file) throw badRequest("Missing required form field: file (the template PDF)");
  const document = await ingestPdf(ctx, { bytes: input.form.file.bytes, fields: [], path: [], tagPath: ["file", "tags"] });
  try {
    const provider = signingProvider(ctx.env);
    const ref = { instance: template.provider_instance, providerTemplateId: template.provider_template_id, templateId: template.id };
    await viaProvider("the document could not be stored", () => provider.setTemplateDocument({ ...ref, documentKey: document.key, pageCount: document.pageCount }));
    if (document.fields.length) await viaProvider("the fields could not be stored", () => provider.setTemplateFields({ ...ref, fields: document.fields }));
    const at = nowIso();
    const [update] = await commitWithOrgAudit(db, { orgId: ctx.orgId, action: "template.document_attached", actor: ctx.actor, data: { template_id: template.id, sha256: document.sha256, fields: document.fields.length }, at }, [
      templateDocumentUpdate(db, template.id, document, at),
      ...insertTemplateFields(db, { templateId: template.id, orgId: ctx.orgId, fields: document.fields, at, onlyWithDocumentKey: document.key }),
    ], { guarded: true });
    if (update?.meta.changes !== 1) {
      await restoreWinner(ctx, template.id, ref);
      throw conflict("The template received a document concurrently");
    }
    return templateDetail({ ...template, document_key: document.key, document_sha256: document.sha256, document_size_bytes: document.sizeBytes, page_count: document.pageCount, page_sizes: pageSizesText(document.pageSizes), updated_at: at }, document.fields);
  } catch (err) {
    await discardDocuments(ctx.env, [document.key]);
    throw err;
  }
}

/**
 * This upload lost the race after writing its document and fields to the provider: point the provider
 * back at what the winner committed, so the template's counterpart never names the object about to be discarded.
 */
async function restoreWinner(ctx: OrgContext, templateId: string, ref: { instance: TemplateRow["provider_instance"]; providerTemplateId: number; templateId: string }) {
  const winner = await getTemplate(ctx.global, ctx.orgId, templateId);
  if (!winner.document_key) return;
  const provider = signingProvider(ctx.env);
  const fields = await listTemplateFields(ctx.global, templateId);
  await viaProvider("the document could not be stored", () => provider.setTemplateDocument({ ...ref, documentKey: winner.document_key!, pageCount: winner.page_count ?? 0 }));
  await viaProvider("the fields could not be stored", () => provider.setTemplateFields({ ...ref, fields }));
}
