import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { updateOrg } from "../../../services/operator/orgs";
import { OrgIdParams, OrgSchema, PatchOrgBody } from "../../../services/operator/schema";
import { operatorRoute } from "../common";


export const route = createRoute(
  operatorRoute(
    {
      method: "patch",
      operationId: "updateOrganization",
      path: "/operator/orgs/{org_id}",
      summary: "Update an organization (name, connected Stripe account, platform fee, embed frame ancestors, reminder defaults, current shard)",
      description:
        "`embed_frame_ancestors` replaces the origins allowed to frame the signing page and widgets (`null` or `[]`: none; at most 20, each `https://host[:port]` or `https://*.domain`, `http:` only for localhost and 127.0.0.1; normalized and de-duplicated; a bad entry is 422 at its index). The organization's admins can also set it: `PUT /api/v2/org/embed-settings`. `reminder_after_days` (1 to 30) and `reminder_every_days` (0 to 30, 0: once) are the reminder schedule of the organization's envelopes that set none (`null`: no default). `current_shard_id` moves where its new envelopes, customers and batches go: an open shard of this deployment, else 422; its existing records stay on their shards, still read, listed and swept.",
      request: { params: OrgIdParams, body: jsonBody(PatchOrgBody) },
      responses: { 200: jsonContent(dataOf(OrgSchema), "The organization") },
    },
    [404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) =>
  c.json({ data: await updateOrg(c.var.ctx, { orgId: c.req.valid("param").org_id, ...c.req.valid("json") }) }, 200);
