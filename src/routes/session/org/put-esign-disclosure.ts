import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { saveEsignDisclosure } from "../../../services/consent/save-disclosure";
import { LocaleQuery } from "../../../services/i18n/schema";
import { EsignDisclosureBody, EsignDisclosureSchema } from "../../../services/consent/schema";
import { sessionRoute } from "../common";
import { ORG_TAGS } from "./params";

export const route = createRoute(
  sessionRoute(
    "admin",
    {
      method: "put",
      operationId: "updateEsignDisclosure",
      path: "/org/esign-disclosure",
      tags: ORG_TAGS,
      summary: "Save a new version of the E-SIGN consumer disclosure (admin)",
      description:
        "Saves the next version (1, 2, …) of the disclosure in `?locale=` (default `en`; each locale keeps its own versions, and an envelope is shown the one of its `locale`) with its SHA-256; earlier versions are kept, and an envelope keeps the version it was created with. `required` is the default of the envelope create field `consumer_consent`. Recorded in the organization's audit chain.",
      request: { query: LocaleQuery, body: jsonBody(EsignDisclosureBody) },
      responses: { 200: jsonContent(dataOf(EsignDisclosureSchema), "The saved version") },
    },
    [400, 409, 415, 422],
  ),
);

export const handler: OrgRouteHandler<typeof route> = async (c) =>
  c.json({ data: await saveEsignDisclosure(c.var.ctx, { disclosure: c.req.valid("json"), locale: c.req.valid("query").locale ?? "en" }) }, 200);
