import { call, createEnvelope, newTenant } from "./api";
import { memberToken, putTemplateDocument, send, uploadTemplate } from "./templates";
import { paperEnvelope, uploadPaper } from "./vault";

/** One way a PDF reaches the service: the upload's answer. */
export type UploadPath = (file: Uint8Array) => Promise<{ status: number; body: { error?: unknown; details?: unknown } }>;

/**
 * Every path an uploaded PDF takes into the service, for a fresh organization: a partner template, an
 * envelope's own document, a paper vault-in and a console template's document.
 */
export async function uploadPaths(): Promise<{ orgId: string; paths: Record<string, UploadPath> }> {
  const t = await newTenant();
  const admin = await memberToken(t.orgId, "admin");
  return {
    orgId: t.orgId,
    paths: {
      "POST /partner/templates": (file) => uploadTemplate(t.key, { file }),
      "PUT /partner/envelopes/:id/document": async (file) => {
        const e = await createEnvelope(t.key);
        const form = new FormData();
        form.append("file", new File([file], "contract.pdf", { type: "application/pdf" }));
        return send("PUT", `/partner/envelopes/${e.envelope_id}/document`, t.key, form);
      },
      "paper vault-in": async (file) => uploadPaper(t.key, (await paperEnvelope(t.key)).envelope_id, file),
      "console template document": async (file) => {
        const created = await call("POST", "/templates", { bearer: admin, body: { name: "Upload" } });
        return putTemplateDocument(admin, created.body.data.template_id, file);
      },
    },
  };
}
