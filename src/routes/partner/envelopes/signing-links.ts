import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { SigningLinksSchema } from "../../../services/signers/schema";
import { getSigningLinks } from "../../../services/signers/signing-links";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "./params";

export const route = createRoute(
  partnerRoute(
    "envelopes:read",
    {
      method: "get",
      operationId: "listSigningLinks",
      path: "/partner/envelopes/{envelope_id}/signing-links",
      summary: "Get each signer's short-lived signing link",
      description:
        "One link per signer, in signing order, with the signer's status. Each `embed_url` (with its `slug`) is a 15-minute signing session, never the signer's permanent link (that goes only into the invitation email): it stops working at `expires_at` (410 `signing_session_expired`); ask again for fresh ones. A key without `esign:write` gets **view-only** sessions (`view_only: true`): they show what the signer would see at that moment (the KBA and consent gates still apply) and never consent, answer KBA, view-record, submit, decline or pay (403 `view_only_session`). `embed_url` is opaque (on the embed host; on the signing host for KBA envelopes): read it from here, never build it. Before the envelope is sent there are no signers: 409.",
      request: { params: EnvelopeParams },
      responses: { 200: jsonContent(dataOf(SigningLinksSchema), "The signers and their links") },
    },
    [400, 404, 409],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const viewOnly = !c.var.apiKey.scopes.includes("esign:write");
  const links = await getSigningLinks(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id, field: "embed_url", viewOnly });
  return c.json({ data: links }, 200);
};
