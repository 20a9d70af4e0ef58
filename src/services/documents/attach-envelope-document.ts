import { badRequest, conflict } from "../../lib/errors";
import { newShardId, shardOf } from "../../lib/shards";
import type { MultipartForm } from "../../lib/multipart";
import { nowIso } from "../../lib/time";
import type { OrgContext } from "../../lib/context";
import { getEnvelope } from "../envelopes/repository";
import { envelopeDetail } from "../envelopes/serialize";
import { assertTransition } from "../envelopes/state-machine";
import { applyTransition } from "../envelopes/transition";
import { insertEnvelopeFields, insertOriginalDocument } from "./repository";
import { discardDocuments, ingestPdf } from "./ingest-pdf";

/**
 * PUT /partner/envelopes/:id/document (docs/decisions/envelope-state-machine.md): attaches the PDF to sign to a pending envelope.
 * Its embedded tags become the envelope's fields and are stripped; the original document row, the
 * fields and the move to `uploaded` commit together. Paper envelopes take their signed document
 * through vault-in-upload, and a template envelope already has its document: both are 409.
 */
export async function attachEnvelopeDocument(ctx: OrgContext, input: { envelopeId: string; form: MultipartForm }) {
  const envelope = await getEnvelope(ctx.db, ctx.orgId, input.envelopeId);
  if (envelope.document_source === "upload") {
    throw conflict(`Paper envelopes take their signed document through POST /partner/envelopes/${envelope.id}/vault-in-upload`, { document_source: "upload" });
  }
  if (envelope.template_id) throw conflict("The envelope already has its document, from its template", { template_id: envelope.template_id });
  assertTransition(envelope.status, "attach_document"); // 422 naming the status, before the upload is stored
  if (!input.form.file) throw badRequest("Missing required form field: file (the PDF to sign)");

  const document = await ingestPdf(ctx, { bytes: input.form.file.bytes, fields: [], path: [], tagPath: ["file", "tags"] });
  const db = ctx.db;
  const at = nowIso();
  try {
    const updated = await applyTransition(ctx, envelope, {
      action: "attach_document",
      data: { document: { sha256: document.sha256, size_bytes: document.sizeBytes, page_count: document.pageCount }, fields: document.fields.length },
      extra: [
        insertOriginalDocument(db, { id: newShardId("document", shardOf(envelope.id)), envelopeId: envelope.id, orgId: ctx.orgId, key: document.key, sha256: document.sha256, sizeBytes: document.sizeBytes, pageCount: document.pageCount, pageSizes: document.pageSizes, at }),
        ...insertEnvelopeFields(db, { envelopeId: envelope.id, orgId: ctx.orgId, fields: document.fields, sourceTemplateId: null, at }),
      ],
    });
    return {
      ...envelopeDetail(updated),
      document: { sha256: document.sha256, size_bytes: document.sizeBytes, page_count: document.pageCount },
      fields: document.fields.map((f) => ({ ...f, value: f.default_value })),
    };
  } catch (err) {
    await discardDocuments(ctx.env, [document.key]);
    throw err;
  }
}
