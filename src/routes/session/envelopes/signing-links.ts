import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { SessionSigningLinksSchema } from "../../../services/signers/schema";
import { getSigningLinks } from "../../../services/signers/signing-links";
import { EnvelopeParams } from "../../partner/envelopes/params";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "get",
      operationId: "consoleListSigningLinks",
      path: "/envelopes/{envelope_id}/signing-links",
      summary: "Get each signer's signing link (console)",
      description: "The partner route's answer with the URL named `signing_url`. Before the envelope is sent: 409.",
      request: { params: EnvelopeParams },
      responses: { 200: jsonContent(dataOf(SessionSigningLinksSchema), "The signers and their links") },
    },
    [400, 404, 409],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const links = await getSigningLinks(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id, field: "signing_url" });
  return c.json({ data: links }, 200);
};
