import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, errorResponses, jsonContent } from "../../lib/openapi";
import { getSigning } from "../../services/signing/get-signing";
import { SIGNING_SECURITY_NOTE, SIGNING_TAGS, SlugParams } from "./common";

const Area = z.object({ page: z.number().int(), x: z.number(), y: z.number(), w: z.number(), h: z.number() });
const SigningState = z.object({
  envelope: z.object({ id: z.string(), name: z.string(), status: z.string(), expires_at: z.string().nullable() }),
  signer: z.object({
    name: z.string(),
    email: z.string(),
    role: z.string(),
    routing_order: z.number().int(),
    status: z.string(),
    viewed_at: z.string().nullable(),
    signed_at: z.string().nullable(),
  }),
  is_your_turn: z.boolean(),
  fields: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      required: z.boolean(),
      readonly: z.boolean(),
      default_value: z.string().nullable(),
      options: z
        .array(z.string())
        .nullable()
        .openapi({
          description:
            "select and radio: the choices, in order; the value submitted must be one of them. A radio with one area per option places `options[i]` at `areas[i]`; with one area its choices are shown inside it. null for other types",
          example: ["Monthly", "Quarterly"],
        }),
      value: z.unknown().openapi({ description: "Prefilled or default value (drawn signatures as `{ kind: \"drawn\" }`)" }),
      areas: z.array(Area).openapi({ description: "Fractions of the displayed page, top-left origin" }),
    }),
  ),
  signers: z.array(z.object({ name: z.string(), role: z.string(), routing_order: z.number().int(), status: z.string(), is_you: z.boolean() })),
});

export const route = createRoute({
  method: "get",
  path: "/signing/{slug}",
  summary: "A signer's view of the envelope",
  description: `The envelope's name and status, this signer's fields (type, rules, prefilled value, areas), the other signers' progress without their values, and whether it is this signer's turn. ${SIGNING_SECURITY_NOTE}`,
  tags: SIGNING_TAGS,
  request: { params: SlugParams },
  responses: { 200: jsonContent(dataOf(SigningState), "The signer's state"), ...errorResponses(400, 404, 410, 429) },
});

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const data = await getSigning(c.env, c.req.valid("param").slug);
  c.header("Cache-Control", "private, no-store");
  return c.json({ data }, 200);
};
