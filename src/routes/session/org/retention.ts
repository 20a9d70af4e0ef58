import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { getRetentionPolicy, setRetentionPolicy } from "../../../services/retention/retention-policy";
import { RetentionBody, RetentionSchema } from "../../../services/retention/schema";
import { sessionRoute } from "../common";
import { ORG_TAGS } from "./params";

export const getRoute = createRoute(
  sessionRoute("admin", {
    method: "get",
    operationId: "getRetentionPolicy",
    path: "/org/retention",
    tags: ORG_TAGS,
    summary: "Read the retention policy of closed vault records (admin)",
    description: "How many years a record the organization closes (paid off, papered out) is kept, and whether the cron destroys the records it controls once their retention passes. Defaults: 7 years, no automatic destruction.",
    responses: { 200: jsonContent(dataOf(RetentionSchema), "The policy") },
  }),
);

export const getHandler: OrgRouteHandler<typeof getRoute> = async (c) => c.json({ data: await getRetentionPolicy(c.var.ctx) }, 200);

export const putRoute = createRoute(
  sessionRoute(
    "admin",
    {
      method: "put",
      operationId: "updateRetentionPolicy",
      path: "/org/retention",
      tags: ORG_TAGS,
      summary: "Replace the retention policy of closed vault records (admin)",
      description:
        "`retain_years_after_close` (1 to 50, default 7) sets the `retain_until` of each record the organization closes from now on (records closed earlier keep theirs); `auto_destroy` (default false) lets the cron destroy every record the organization controls once its `retain_until` passes, never one under a legal hold. Recorded in the organization's audit chain (`org.retention_updated`).",
      request: { body: jsonBody(RetentionBody) },
      responses: { 200: jsonContent(dataOf(RetentionSchema), "The policy as stored") },
    },
    [400, 415, 422],
  ),
);

export const putHandler: OrgRouteHandler<typeof putRoute> = async (c) => {
  const body = c.req.valid("json");
  return c.json({ data: await setRetentionPolicy(c.var.ctx, { retainYearsAfterClose: body.retain_years_after_close, autoDestroy: body.auto_destroy }) }, 200);
};
