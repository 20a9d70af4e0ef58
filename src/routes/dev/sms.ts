import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { errorResponses } from "../../lib/openapi";
import { devPagesOnly } from "../../middleware/dev-pages";
import { devSmsPage } from "../../pages/dev-sms";
import { listRecentSms } from "../../services/otp/outbox";
import { publicRoute } from "../define";

const LIMIT = 200;

export const route = createRoute(publicRoute({
  method: "get",
  operationId: "listDevSms",
  path: "/dev/sms",
  summary: "SMS outbox page (development only)",
  description:
    "An HTML list of the newest text messages (signers' one-time passcodes) in the outbox, for local development where `SMS_PROVIDER=outbox` and no text leaves the service. Served only when the `DEV_PAGES` variable is `true` in development (`SERVICE_ENV=development`); otherwise 404, or 503 naming `DEV_PAGES` when it is `true` in production.",
  tags: ["Development"],
  middleware: [devPagesOnly] as const,
  responses: {
    200: { description: "The SMS outbox, newest first", content: { "text/html": { schema: z.string() } } },
    ...errorResponses(404, 503),
  },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const messages = await listRecentSms(c.var.ctx, { limit: LIMIT });
  c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
  c.header("Cache-Control", "no-store");
  return c.html(devSmsPage(messages, LIMIT), 200);
};
