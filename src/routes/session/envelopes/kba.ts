import { createRoute, z } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { listEnvelopeKba } from "../../../services/kba/list-results";
import { KbaResultSchema } from "../../../services/kba/schema";
import { EnvelopeParams } from "../../partner/envelopes/params";
import { sessionRoute } from "../common";

export const route = createRoute(
  sessionRoute(
    "any member",
    {
      method: "get",
      operationId: "consoleListEnvelopeKba",
      path: "/envelopes/{envelope_id}/kba",
      summary: "KBA results of an envelope (console)",
      description: "One result per challenged signer once their identity verification reached an outcome: `passed`, `failed` (after the allowed attempts) or `unavailable`. Questions and answers are never recorded. Empty for envelopes without KBA and before any outcome.",
      request: { params: EnvelopeParams },
      responses: { 200: jsonContent(dataOf(z.array(KbaResultSchema)), "The KBA results") },
    },
    [400, 404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  const data = await listEnvelopeKba(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id });
  return c.json({ data }, 200);
};
