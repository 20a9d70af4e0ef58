import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { updateOrg } from "../../../services/operator/orgs";
import { OrgIdParams, PatchOrgBody } from "../../../services/operator/schema";
import { operatorRoute } from "../common";

const Org = z
  .object({
    org_id: z.string(),
    name: z.string(),
    stripe_account_id: z.string().nullable(),
    platform_fee_bps: z.int(),
    embed_frame_ancestors: z.array(z.string()).openapi({ description: "Origins allowed to frame the signing page and widgets (CSP frame-ancestors); [] for none" }),
    reminder_after_days: z.int().nullable().openapi({ description: "Default days after sending before the first reminder (null: none by default)" }),
    reminder_every_days: z.int().nullable().openapi({ description: "Default days between later reminders (0 or null: once)" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Organization");

export const route = createRoute(
  operatorRoute(
    {
      method: "patch",
      operationId: "updateOrganization",
      path: "/operator/orgs/{org_id}",
      summary: "Update an organization (name, connected Stripe account, platform fee, embed frame ancestors, reminder defaults)",
      description:
        "`embed_frame_ancestors` replaces the origins allowed to frame the signing page and widgets (`null` or `[]`: none; at most 20, each `https://host[:port]` or `https://*.domain`, `http:` only for localhost and 127.0.0.1; normalized and de-duplicated; a bad entry is 422 at its index). The organization's admins can also set it: `PUT /api/v2/org/embed-settings`. `reminder_after_days` (1 to 30) and `reminder_every_days` (0 to 30, 0: once) are the reminder schedule of the organization's envelopes that set none (`null`: no default).",
      request: { params: OrgIdParams, body: jsonBody(PatchOrgBody) },
      responses: { 200: jsonContent(dataOf(Org), "The organization") },
    },
    [404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) =>
  c.json({ data: await updateOrg(c.var.ctx, { orgId: c.req.valid("param").org_id, ...c.req.valid("json") }) }, 200);
