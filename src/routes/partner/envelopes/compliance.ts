import { createRoute, z } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { evaluateCompliance } from "../../../services/compliance/evaluate";
import { EnvelopeStatusEnum, Timestamp } from "../../../services/envelopes/schema";
import { partnerRoute } from "../common";
import { EnvelopeParams } from "./params";

const Check = z
  .object({ requirement: z.string(), ucc_reference: z.string(), satisfied: z.boolean(), detail: z.string() })
  .openapi("ComplianceCheck", {
    example: { requirement: "single_authoritative_copy", ucc_reference: "UCC §9-105(b)(1)", satisfied: true, detail: "Exactly one authoritative copy is stored" },
  });

export const ComplianceEvaluationSchema = z
  .object({
    envelope_id: z.string(),
    envelope_name: z.string(),
    customer_id: z.string(),
    envelope_status: EnvelopeStatusEnum,
    compliance: z.object({
      compliant: z.boolean(),
      score: z.number().openapi({ example: 0.25 }),
      evaluated_at: Timestamp,
      missing_requirements: z.array(z.string()),
      checks: z.array(Check).length(8),
    }),
  })
  .openapi("ComplianceEvaluation");

export const route = createRoute(
  partnerRoute(
    "compliance:read",
    {
      method: "get",
      operationId: "getEnvelopeCompliance",
      path: "/partner/envelopes/{envelope_id}/compliance",
      summary: "Evaluate UCC §9-105 compliance now",
      description: "Runs all 8 checks live, whatever the envelope's status.",
      request: { params: EnvelopeParams },
      responses: { 200: jsonContent(dataOf(ComplianceEvaluationSchema), "The live evaluation") },
    },
    [404],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => {
  return c.json({ data: await evaluateCompliance(c.var.ctx, { envelopeId: c.req.valid("param").envelope_id }) }, 200);
};
