import { ApiError, conflict, unprocessable } from "../../lib/errors";
import { AnchorSearch, closePdf, openPdf } from "../../pdf";
import { nowIso } from "../../lib/time";
import { signingProvider, viaProvider } from "../../providers/signing";
import { commitWithOrgAudit } from "../audit/org-chain";
import type { OrgContext, RequestContext } from "../../lib/context";
import { checkFieldRules, placementFailed, resolveFields, scanDocument, type DocumentScan } from "../documents/place-fields";
import { getTemplate, insertTemplateFields, isFieldNameConflict, listTemplateFields, templateTouch, type TemplateRow } from "./repository";
import type { TemplateFieldInput } from "./schema";

/** The stored PDF, read from R2 only when an anchor needs its text; unreadable is the spec's 502. */
async function scanStoredDocument(ctx: RequestContext, template: TemplateRow, fields: TemplateFieldInput[]): Promise<Pick<DocumentScan, "pageCount" | "anchors" | "textChars">> {
  if (!fields.some((f) => f.placement.mode === "anchor")) return { pageCount: template.page_count ?? 0, anchors: new AnchorSearch([]), textChars: 0 };
  const object = await ctx.env.DOCS.get(template.document_key!);
  if (!object) throw new ApiError(502, "The template PDF could not be fetched from storage");
  let pdf;
  try {
    pdf = await openPdf(new Uint8Array(await object.arrayBuffer()));
  } catch {
    throw new ApiError(502, "The template PDF could not be read from storage");
  }
  try {
    return await scanDocument(pdf, { tags: false, fields });
  } finally {
    await closePdf(pdf);
  }
}

/**
 * POST /partner/templates/:id/fields: appends fields (absolute and anchor placements may be mixed);
 * the provider gets the template's whole field list, then the rows and the audit entry commit.
 */
export async function addTemplateFields(ctx: OrgContext, input: { templateId: string; fields: TemplateFieldInput[] }) {
  // the organization's templates only (global, with their org-chain entry); a builder working copy is not found here
  const db = ctx.global;
  const template = await getTemplate(db, ctx.orgId, input.templateId);
  if (!template.document_key) throw conflict("The template has no document yet: fields are placed on its PDF", { template_id: template.id });
  const existing = await listTemplateFields(db, template.id);
  const scan = await scanStoredDocument(ctx, template, input.fields);
  const { fields, issues, located } = resolveFields(input.fields, scan, ["fields"]);
  issues.push(...checkFieldRules(located, new Set(existing.map((f) => f.name))));
  if (issues.length) placementFailed(issues);

  await viaProvider("the fields could not be stored", () =>
    signingProvider(ctx.env).setTemplateFields({ instance: template.provider_instance, providerTemplateId: template.provider_template_id, templateId: template.id, fields: [...existing, ...fields] }),
  );
  const at = nowIso();
  try {
    await commitWithOrgAudit(db, { orgId: ctx.orgId, action: "template.fields_added", actor: ctx.actor, data: { template_id: template.id, fields: fields.map((f) => f.name) }, at }, [
      ...insertTemplateFields(db, { templateId: template.id, orgId: ctx.orgId, fields, placements: input.fields.map((f) => f.placement), at }),
      templateTouch(db, template.id, at),
    ]);
  } catch (err) {
    if (isFieldNameConflict(err)) throw unprocessable("A field with one of these names was added concurrently; retry", [{ code: "duplicate_name", expected: "unique field names", received: "a name taken concurrently", path: ["fields"], message: "A field name is already taken" }]);
    throw err;
  }
  return { template_id: template.id, fields_added: fields.length, fields };
}
