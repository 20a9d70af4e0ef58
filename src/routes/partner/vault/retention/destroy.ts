import { createRoute, z } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonContent, mergeErrorCodes } from "../../../../lib/openapi";
import { DestructionSchema, VaultParams } from "../../../../services/control/record-schema";
import { DESTROY_RECORD_ERRORS, destroyRecord } from "../../../../services/retention/destroy-record";
import { partnerRoute } from "../../common";
import { CONTROL_SIGNATURE_ERRORS } from "../../../../services/control/signature";
import { CONTROLLER_ERRORS } from "../../../../services/control/state";

const DestroyedSchema = z
  .object({
    vault_id: z.string(),
    status: z.literal("destroyed"),
    destroyed_at: z.string(),
    destruction: DestructionSchema,
  })
  .openapi("VaultDestroyed");

export const route = createRoute(
  partnerRoute(
    "vault:control",
    {
      method: "post",
      operationId: "destroyVaultRecord",
      [ERROR_CODES_KEY]: mergeErrorCodes(CONTROL_SIGNATURE_ERRORS, CONTROLLER_ERRORS, DESTROY_RECORD_ERRORS),
      path: "/partner/vault/{vault_id}/destroy",
      summary: "Destroy a closed record after its retention period",
      description:
        "By the controller, once the record is closed (paid off, papered out) and its `retain_until` has passed: the authoritative copy, the marked and paper-out copies and every evidence bundle are deleted; the record becomes `destroyed` in every read and keeps its SHA-256, its chain, its certificates and its RFC 4998 evidence record. Answers the destruction certificate (JSON, and a JWS by the seal key over its RFC 8785 canonical form), which the record read keeps under `destruction`. Recorded on the chain (`vault.destroyed`, with the certificate's SHA-256); every party receives `vault.destroyed`. A legal hold in force: 409 `legal_hold` (it wins); before `retain_until`, or the record still active: 409 `retention_period`; already destroyed: 409 `record_destroyed`; not the controller: 403 `not_controller`; not a party: 404. Afterwards its copy and evidence bundle answer 409 `record_destroyed`, its authoritative copy 409 `control_closed` (as every closed record's).",
      request: { params: VaultParams },
      responses: { 200: jsonContent(dataOf(DestroyedSchema), "The destruction certificate") },
    },
    [404, 409, 503],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) =>
  c.json({ data: await destroyRecord(c.var.ctx, { vaultId: c.req.valid("param").vault_id, by: { orgId: c.var.ctx.orgId } }) }, 200);
