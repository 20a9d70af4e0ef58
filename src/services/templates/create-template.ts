import { badRequest, unprocessable } from "../../lib/errors";
import type { MultipartForm } from "../../lib/multipart";
import { notAPdf, hasPdfSignature } from "../../pdf";
import { toApiIssues } from "../../lib/validation";
import type { OrgContext } from "../../lib/context";
import { discardDocuments, ingestPdf } from "../documents/ingest-pdf";
import { insertTemplate } from "./insert-template";
import { TemplateFieldsInputSchema, type TemplateFieldInput } from "./schema";

const MAX_NAME = 200;

/** The text fields of the upload form, checked in the order the spec's table gives its statuses. */
function readForm(form: MultipartForm) {
  if (!form.file) throw badRequest("Missing required form field: file (the template PDF)");
  const name = form.fields.name?.trim();
  if (!name) throw badRequest("Missing required form field: name");
  let parsed: unknown = [];
  if (form.fields.fields_json !== undefined && form.fields.fields_json.trim() !== "") {
    try {
      parsed = JSON.parse(form.fields.fields_json);
    } catch {
      throw badRequest("fields_json is not valid JSON: send a JSON-encoded array of template fields");
    }
  }
  // The declared type proves nothing; only the bytes decide (a PDF sent as octet-stream is fine).
  if (!hasPdfSignature(form.file.bytes)) throw notAPdf(form.file.contentType ? `declared ${form.file.contentType}, but the bytes are not a PDF` : "the bytes are not a PDF");
  const issues = [];
  if (name.length > MAX_NAME) issues.push({ code: "too_big", expected: `string <= ${MAX_NAME} characters`, received: "string", path: ["name"], message: `name is at most ${MAX_NAME} characters` });
  const externalId = form.fields.external_id?.trim() || null;
  if (externalId && externalId.length > MAX_NAME) issues.push({ code: "too_big", expected: `string <= ${MAX_NAME} characters`, received: "string", path: ["external_id"], message: `external_id is at most ${MAX_NAME} characters` });
  // a multipart field is text: `true` or `false` (absent or empty: false), anything else is a validation issue
  const kbaText = form.fields.kba_required?.trim().toLowerCase() ?? "";
  if (kbaText !== "" && kbaText !== "true" && kbaText !== "false") {
    issues.push({ code: "invalid_type", expected: "boolean (`true` or `false`)", received: "string", path: ["kba_required"], message: "kba_required is `true` or `false`" });
  }
  const kbaRequired = kbaText === "true";
  const fields = TemplateFieldsInputSchema.safeParse(parsed);
  if (!fields.success) issues.push(...toApiIssues(fields.error, parsed).map((i) => ({ ...i, path: ["fields_json", ...i.path] })));
  if (issues.length || !fields.success) throw unprocessable("Validation failed", issues);
  return { name, externalId, kbaRequired, fields: fields.data as TemplateFieldInput[], bytes: form.file.bytes };
}

/**
 * POST /partner/templates: the PDF is stored, its embedded tags become fields (and are stripped),
 * `fields_json` is resolved against it (anchors searched in its text layer), then the provider
 * counterpart and the template row are created. `kba_required` (fixed at creation) puts the template in
 * the `cloud` instance: every envelope made from it requires KBA.
 */
export async function createTemplateFromUpload(ctx: OrgContext, input: { form: MultipartForm }) {
  const { name, externalId, kbaRequired, fields, bytes } = readForm(input.form);
  const document = await ingestPdf(ctx, { bytes, fields, path: ["fields_json"], tagPath: ["file", "tags"] });
  try {
    const placements = [...document.fields.filter((f) => f.placement_mode === "tag").map(() => ({ mode: "tag" })), ...fields.map((f) => f.placement)];
    const template = await insertTemplate(ctx, { name, externalId, kbaRequired, origin: "upload", document, fields: document.fields, placements });
    return {
      template_id: template.id,
      provider_template_id: template.provider_template_id,
      name: template.name,
      external_id: template.external_id,
      kba_required: template.kba_required === 1,
      provider_instance: template.provider_instance,
      page_count: document.pageCount,
      fields_added: document.fields.length,
      fields: document.fields,
    };
  } catch (err) {
    await discardDocuments(ctx.env, [document.key]);
    throw err;
  }
}
