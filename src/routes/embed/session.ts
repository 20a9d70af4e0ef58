import { createRoute } from "@hono/zod-openapi";
import type { RouteHandler } from "@hono/zod-openapi";
import type { EmbedEnv } from "../../middleware/embed-auth";
import { dataOf, errorResponses, jsonBody, jsonContent } from "../../lib/openapi";
import { openEmbedSession } from "../../services/embed/open-session";
import { EmbedSessionBody, EmbedSessionSchema } from "../../services/embed/schema";
import { embedRoute } from "./common";

export const route = createRoute(embedRoute({
  method: "post",
  operationId: "openEmbedSession",
  path: "/embed/session",
  summary: "Open an embed widget: what the sign or vault page shows",
  description:
    "Called by the embed page itself (the iframe at `embed_url`), never by a partner backend: the credential is the embed token from the URL fragment, sent as `Authorization: Bearer <EMBED_TOKEN>` (never in a URL), and the body names the widget and envelope of the page's path. " +
    "An expired, forged or otherwise invalid token is 401 with `details.reason` `expired` or `invalid` (`missing` without a token); a genuine token for another envelope or widget is 403. " +
    "`sign` answers a short-lived signing session for the token's signer as `signing_slug` (never the signer's permanent slug; it ends with the token, `signing_session_expires_at`): use it as `{slug}` in `GET /api/v2/signing/{slug}` and the other signer routes, which enforce the signing order and answer 410 once the envelope is closed or the session has expired; 403 when the token's email is not a signer. " +
    "`vault` answers the vaulted document's SHA-256, certificate, compliance summary, its `record` (retention: `retain_until`, the controller's `auto_destroy`; the legal holds in force; the destroyed state) and a 5-minute download URL of the authoritative copy (null once the record is destroyed), or `vault: null` while the envelope is not vaulted.",
  request: { body: jsonBody(EmbedSessionBody) },
  responses: {
    200: jsonContent(dataOf(EmbedSessionSchema), "The widget's data (`Cache-Control: no-store`)"),
    ...errorResponses(400, 401, 403, 404, 415, 422, 503, 429),
  },
}));

export const handler: RouteHandler<typeof route, EmbedEnv> = async (c) => {
  const body = c.req.valid("json");
  const data = await openEmbedSession(c.var.ctx, {
    claims: c.var.embed,
    widgetType: body.widget_type,
    envelopeId: body.envelope_id,
  });
  c.header("Cache-Control", "no-store");
  return c.json({ data }, 200);
};
