import { unprocessable } from "../../lib/errors";
import { newShardId, shardOf, type ShardDb } from "../../lib/shards";
import type { ApiIssue } from "../../lib/validation";
import { copyTemplateFieldRows, insertOriginalDocument } from "../documents/repository";
import type { CreateEnvelopeInput } from "./schema";
import { fieldFromRow, findTemplate, listTemplateFieldRows, templateDb } from "../templates/repository";
import type { ProviderInstance, ResolvedField } from "../templates/schema";
import type { OrgContext } from "../../lib/context";

/** What an envelope created from a template takes from it. */
export type TemplateSource = {
  templateId: string;
  metadata: { document_source: "template"; source_template_id: string };
  kbaRequired: boolean;
  providerInstance: ProviderInstance;
  /** the envelope's original document (the template's PDF) and its fields, for the create batch on the envelope's shard */
  statements(db: ShardDb, envelopeId: string, at: string): D1PreparedStatement[];
};

const issue = (path: (string | number)[], expected: string, received: string, message: string): ApiIssue => ({ code: "invalid_value", expected, received, path, message });

/**
 * A prefilled value as stored text: checkboxes take booleans ("true"/"false"), numbers take numbers,
 * select and radio fields one of their options, signature and initials fields take nothing (a
 * prefilled signature would be a forged one).
 */
function prefillValue(field: ResolvedField, value: string | number | boolean | null, path: (string | number)[]): string | null | ApiIssue {
  if (value === null) return null;
  switch (field.type) {
    case "signature":
    case "initials":
    case "attachment":
      return issue(path, "no prefill", typeof value, `${field.type} fields cannot be prefilled`);
    case "checkbox":
      if (value === true || value === "true") return "true";
      if (value === false || value === "false") return "false";
      return issue(path, "boolean", typeof value, "a checkbox takes true or false");
    case "number":
      if (typeof value === "number" || (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)))) return String(value);
      return issue(path, "number", typeof value, "a number field takes a number");
    case "select":
    case "radio":
      if (field.options === null || (typeof value === "string" && field.options.includes(value))) return String(value);
      return issue(path, `one of: ${field.options.join(", ")}`, JSON.stringify(value), `a ${field.type} field takes one of its options: ${field.options.join(", ")}`);
    default:
      return String(value);
  }
}

/**
 * Resolves `template_id` of a create-envelope body: a template of the caller's organization that is
 * not deleted and has a document. Unknown, foreign and deleted templates are the same 422 on
 * `template_id` (the body refers to something that is not there; no existence leak across orgs).
 * `prefilled_data` keys must name fields of the template.
 */
export async function templateSourceFor(ctx: OrgContext, input: { body: CreateEnvelopeInput }): Promise<TemplateSource> {
  const { orgId } = ctx;
  const { body } = input;
  const templateId = body.template_id!;
  // the organization's template is global (a builder working copy: its shard); the envelope is on ctx.db,
  // so the fields are read here and inserted as values (docs/decisions/shards.md 3)
  const db = templateDb(ctx, templateId);
  const template = await findTemplate(db, orgId, templateId);
  if (!template) throw unprocessable("Unknown template_id", [issue(["template_id"], "a template of this organization", templateId, "Template not found")]);
  if (!template.document_key) throw unprocessable("The template has no document yet", [issue(["template_id"], "a template with a PDF", templateId, "Template has no document")]);
  if (body.document_source === "upload") {
    throw unprocessable("A paper envelope (document_source upload) cannot use a template", [issue(["document_source"], "new (or omitted) with template_id", "upload", "template_id implies document_source template")]);
  }
  const rows = await listTemplateFieldRows(db, templateId);
  const fields = new Map(rows.map((r) => [r.name, fieldFromRow(r)]));
  const values: Record<string, string | null> = {};
  const issues: ApiIssue[] = [];
  for (const [name, value] of Object.entries(body.prefilled_data ?? {})) {
    const field = fields.get(name);
    if (!field) {
      issues.push(issue(["prefilled_data", name], "the name of a field of the template", JSON.stringify(name), `The template has no field named ${JSON.stringify(name)}`));
      continue;
    }
    const v = prefillValue(field, value, ["prefilled_data", name]);
    if (v !== null && typeof v === "object") issues.push(v);
    else values[name] = v;
  }
  if (issues.length) throw unprocessable("Validation failed", issues);
  return {
    templateId,
    metadata: { document_source: "template", source_template_id: templateId },
    kbaRequired: template.kba_required === 1,
    providerInstance: template.provider_instance,
    statements: (db, envelopeId, at) => [
      // Template PDFs are never rewritten in place, so the envelope shares the object instead of copying it.
      insertOriginalDocument(db, { id: newShardId("document", shardOf(envelopeId)), envelopeId, orgId, key: template.document_key!, sha256: template.document_sha256!, sizeBytes: template.document_size_bytes!, pageCount: template.page_count, pageSizes: template.page_sizes, at }),
      ...copyTemplateFieldRows(db, { envelopeId, fields: rows, values, at }),
    ],
  };
}
