import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { createCustomer } from "../../../services/operator/customers";
import { CreateCustomerBody, OrgIdParams } from "../../../services/operator/schema";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute(
    {
      method: "post",
      operationId: "createCustomer",
      path: "/operator/orgs/{org_id}/customers",
      summary: "Create a customer in an organization",
      request: { params: OrgIdParams, body: jsonBody(CreateCustomerBody) },
      responses: {
        201: jsonContent(
          dataOf(z.object({ customer_id: z.string(), name: z.string(), email: z.string().nullable(), primary_contact_name: z.string().nullable(), created_at: z.string() })),
          "The customer",
        ),
      },
    },
    [404, 409],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const body = c.req.valid("json");
  const customer = await createCustomer(c.var.ctx, {
    orgId: c.req.valid("param").org_id,
    name: body.name,
    email: body.email,
    primaryContactName: body.primary_contact_name,
  });
  return c.json({ data: customer }, 201);
};
