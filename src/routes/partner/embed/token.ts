import { createRoute, z } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonBody, jsonContent } from "../../../lib/openapi";
import { EMBED_TOKEN_ERRORS, mintEmbedToken, WIDGETS } from "../../../services/embed/tokens";
import { partnerRoute } from "../common";
import { LocaleSchema } from "../../../services/i18n/schema";

const EmbedTokenBody = z
  .object({
    envelope_id: z.string().min(1).max(64),
    user_email: z.email().max(254),
    widget_type: z.enum(WIDGETS),
    locale: LocaleSchema.optional().openapi({
      description: "`vault` only: the widget's language (`en`, `es`). Default: the organization's `default_locale` (GET /org/settings), else `en`. The sign widget speaks its envelope's `locale` (422 here)",
    }),
  })
  .superRefine((b, ctx) => {
    if (b.locale && b.widget_type === "sign") ctx.addIssue({ code: "custom", path: ["locale"], message: "the sign widget speaks the envelope's locale (set at create); locale is for the vault widget" });
  })
  .openapi("CreateEmbedToken", { example: { envelope_id: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y", user_email: "jane.doe@example.com", widget_type: "sign" } });

const EmbedToken = z
  .object({
    token: z.string(),
    expires_at: z.string(),
    embed_url: z.string().openapi({
      description:
        "Open in an iframe: `{embed_host}/<widget_type>/<envelope_id>#token=<token>`. The path lets the embed host answer with the organization's CSP frame-ancestors; the token is in the URL fragment, which browsers never send to a server, so it never reaches a server log. The page sends it to POST /api/v2/embed/session as a bearer header.",
    }),
    widget_type: z.enum(WIDGETS),
    envelope_id: z.string(),
  })
  .openapi("EmbedToken", {
    example: {
      token: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJlbnZlbG9wZUlkIjoi…",
      expires_at: "2026-11-23T09:45:00.000Z",
      embed_url: "https://embed.example.com/sign/env_9x2k4m7q1c8v5b3n6p0r2t4w6y#token=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJlbnZlbG9wZUlkIjoi…",
      widget_type: "sign",
      envelope_id: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y",
    },
  });

// The scope depends on the widget: `esign:write` for sign, `vault:read` for vault.
export const embedTokenRoute = createRoute(
  partnerRoute(
  ["esign:write", "vault:read"],
  {
    method: "post",
    operationId: "createEmbedToken",
    [ERROR_CODES_KEY]: EMBED_TOKEN_ERRORS,
    path: "/embed/token",
    summary: "Mint a 15-minute embed token for one envelope and one widget",
    tags: ["Embed"],
    description:
      "`sign` needs scope `esign:write` and an envelope that is `sent` or `viewed`; `vault` needs `vault:read` and a `vaulted` envelope. KBA envelopes cannot be embedded for signing (409, `code: kba_required`).",
    request: { body: jsonBody(EmbedTokenBody) },
    responses: { 200: jsonContent(dataOf(EmbedToken), "The embed token") },
  },
  [404, 409, 415, 422],
  ),
);

export const embedTokenHandler: OrgRouteHandler<typeof embedTokenRoute> = async (c) => {
  const body = c.req.valid("json");
  const token = await mintEmbedToken(c.var.ctx, {
    scopes: c.var.apiKey.scopes,
    envelopeId: body.envelope_id,
    userEmail: body.user_email,
    widgetType: body.widget_type,
    locale: body.locale,
  });
  return c.json({ data: token }, 200);
};
