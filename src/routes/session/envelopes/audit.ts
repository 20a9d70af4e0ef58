import { createRoute, z } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { verifyEnvelopeChain } from "../../../services/envelopes/verify-envelope-chain";
import { EnvelopeParams } from "../../partner/envelopes/params";
import { sessionRoute } from "../common";

const Verification = z
  .object({
    envelope_id: z.string(),
    verified: z.boolean(),
    entries: z.int(),
    head_hash: z.string().optional(),
    first_broken: z.object({ seq: z.int(), entry_id: z.string().nullable(), reason: z.string() }).optional(),
  })
  .openapi("AuditChainVerification", { example: { envelope_id: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y", verified: true, entries: 3, head_hash: "5e1c…" } });

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "get",
      operationId: "verifyEnvelopeAudit",
      path: "/envelopes/{envelope_id}/audit/verify",
      summary: "Verify an envelope's audit chain (admin)",
      description: "Re-hashes the envelope's audit chain from its first entry; reports the first broken link if any.",
      request: { params: EnvelopeParams },
      responses: { 200: jsonContent(dataOf(Verification), "The verification result") },
    },
    [404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  return c.json({ data: await verifyEnvelopeChain(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id }) }, 200);
};
