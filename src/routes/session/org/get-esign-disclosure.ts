import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { getEsignDisclosure } from "../../../services/consent/get-disclosure";
import { EsignDisclosureSchema } from "../../../services/consent/schema";
import { sessionRoute } from "../common";
import { ORG_TAGS } from "./params";

export const route = createRoute(
  sessionRoute("any member", {
    method: "get",
    operationId: "getEsignDisclosure",
    path: "/org/esign-disclosure",
    tags: ORG_TAGS,
    summary: "Read the E-SIGN consumer disclosure",
    description:
      "The disclosure signers are shown before they consent to electronic records (15 U.S.C. §7001(c)), and whether new envelopes ask for that consent by default (`required`). Until an admin saves one, the shipped default (version 0, `is_default: true`, `required: false`).",
    responses: { 200: jsonContent(dataOf(EsignDisclosureSchema), "The current version") },
  }),
);

export const handler: OrgRouteHandler<typeof route> = async (c) => c.json({ data: await getEsignDisclosure(c.var.ctx) }, 200);
