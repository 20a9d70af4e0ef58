import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { getSigning } from "../../services/signing/get-signing";
import { SigningStateSchema } from "../../services/signing/schema";
import { signerByCredential } from "../../services/signers/resolve-credential";
import { SIGNING_SECURITY_NOTE, SIGNING_TAGS, SlugParams, signerRoute } from "./common";

export const route = createRoute(signerRoute({
  method: "get",
  operationId: "getSigningState",
  path: "/signing/{slug}",
  summary: "A signer's view of the envelope",
  description: `The envelope's name and status, this signer's fields (type, rules, prefilled value, areas; none until KBA, where required, and consent, where asked, are done), the other signers' progress without their values, and whether it is this signer's turn. Once the envelope is completed, for 30 days: its status and \`copy: { url, expires_at }\` (the signer's copy of the signed PDF), no fields; after that, and for a declined, voided or expired envelope, 410. ${SIGNING_SECURITY_NOTE}`,
  tags: SIGNING_TAGS,
  request: { params: SlugParams },
  responses: { 200: jsonContent(dataOf(SigningStateSchema), "The signer's state"), ...errorResponses(400, 404, 410, 429) },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const data = await getSigning(c.var.ctx, { signerId: (await signerByCredential(c.var.ctx, c.req.valid("param").slug)).signerId });
  c.header("Cache-Control", "private, no-store");
  return c.json({ data }, 200);
};
