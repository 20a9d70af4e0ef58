import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonContent } from "../../../lib/openapi";
import { getEsignDisclosure } from "../../../services/consent/get-disclosure";
import { LocaleQuery } from "../../../services/i18n/schema";
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
      "The disclosure signers are shown before they consent to electronic records (15 U.S.C. §7001(c)), and whether new envelopes ask for that consent by default (`required`). Each locale (`?locale=en|es`, default `en`) keeps its own versions; until an admin saves one in a locale, the shipped default of that locale (version 0, `is_default: true`, `required: false`).",
    request: { query: LocaleQuery },
    responses: { 200: jsonContent(dataOf(EsignDisclosureSchema), "The current version") },
  }),
);

export const handler: OrgRouteHandler<typeof route> = async (c) =>
  c.json({ data: await getEsignDisclosure(c.var.ctx, { locale: c.req.valid("query").locale ?? "en" }) }, 200);
