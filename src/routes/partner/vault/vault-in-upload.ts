import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { MAX_PDF_BYTES, readMultipartForm } from "../../../lib/multipart";
import { dataOf, ERROR_CODES_KEY, jsonContent } from "../../../lib/openapi";
import { EnvelopeSchema } from "../../../services/envelopes/schema";
import { envelopeDetail } from "../../../services/envelopes/serialize";
import { VaultInUploadFormDoc } from "../../../services/vault/schema";
import { vaultInUpload } from "../../../services/vault/vault-in-upload";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "../envelopes/params";
import { PAYMENT_PENDING_ERRORS } from "../../../lib/errors";

export const route = createRoute(
  partnerRoute(
    "vault:write",
    {
      method: "post",
      operationId: "vaultUploadedDocument",
      [ERROR_CODES_KEY]: PAYMENT_PENDING_ERRORS,
      path: "/partner/envelopes/{envelope_id}/vault-in-upload",
      summary: "Vault a paper document (upload)",
      description:
        "For `document_source: upload` envelopes in `pending`, `uploaded` or `completed`: the multipart `file` is the signed paper PDF (50 MB at most, checked by its bytes), optional `signed_at`. Records the envelope as signed (`completed`) and vaults it in one step, as vault-in-signed does. Already vaulted with the same document: 200; with another: 409. Envelopes signed here: 409 (use vault-in-signed).",
      request: { params: EnvelopeParams, body: { required: true, content: { "multipart/form-data": { schema: VaultInUploadFormDoc } } } },
      responses: { 200: jsonContent(dataOf(EnvelopeSchema), "The vaulted envelope") },
    },
    [400, 404, 409, 413, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const form = await readMultipartForm(c.req.raw, { fileField: "file", maxFileBytes: MAX_PDF_BYTES });
  const envelope = await vaultInUpload(c.var.ctx, {
    envelopeId: c.req.valid("param").envelope_id,
    file: form.file,
    fields: form.fields,
  });
  return c.json({ data: envelopeDetail(envelope) }, 200);
};
