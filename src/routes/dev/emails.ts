import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { errorResponses } from "../../lib/openapi";
import { devPagesOnly } from "../../middleware/dev-pages";
import { devEmailsPage } from "../../pages/dev-emails";
import { listRecentEmails } from "../../services/email/outbox";
import { publicRoute } from "../define";

const LIMIT = 200;

export const route = createRoute(publicRoute({
  method: "get",
  operationId: "listDevEmails",
  path: "/dev/emails",
  summary: "Email outbox page (development only)",
  description:
    "An HTML list of the newest emails in the outbox, each with its text and signing link, for local development where no email leaves the service. Served only when the `DEV_PAGES` variable is `true` in development (`SERVICE_ENV=development`); otherwise 404, or 503 naming `DEV_PAGES` when it is `true` in production.",
  tags: ["Development"],
  middleware: [devPagesOnly] as const,
  responses: {
    200: { description: "The outbox, newest first", content: { "text/html": { schema: z.string() } } },
    ...errorResponses(404, 503),
  },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const emails = await listRecentEmails(c.var.ctx, { limit: LIMIT });
  c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  c.header("Cache-Control", "no-store");
  return c.html(devEmailsPage(emails, LIMIT), 200);
};
