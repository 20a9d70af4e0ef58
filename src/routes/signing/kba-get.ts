import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../lib/hono";
import { dataOf, ERROR_CODES_KEY, errorResponses, jsonContent } from "../../lib/openapi";
import { KbaStepSchema } from "../../services/kba/schema";
import { getKbaStep } from "../../services/kba/get-kba-step";
import { signerByCredential } from "../../services/signers/resolve-credential";
import { SIGNING_SECURITY_NOTE, SIGNING_TAGS, SlugParams, signerRoute } from "./common";
import { KBA_DAILY_CAP_ERRORS } from "../../services/kba/daily-cap";

export const route = createRoute(signerRoute({
  method: "get",
  operationId: "getSigningKba",
  [ERROR_CODES_KEY]: KBA_DAILY_CAP_ERRORS,
  path: "/signing/{slug}/kba",
  summary: "The signer's identity questions (KBA envelopes)",
  description: `While \`status\` is \`required\`, the question set to answer (started on first call, then the same set on every call until it is answered or lapses after 10 minutes; a lapsed set uses an attempt, like wrong answers). At most 2 sets per signer in any rolling day: 429 with \`code: "kba_daily_limit"\` and \`details.resets_at\`. \`unavailable\` (no questions could be built for this signer) is recorded on first call; the sender decides how to continue. Links without a KBA step: 404. A view-only session (signing links of a key without \`esign:write\`) starts no question set: 403 \`view_only_session\`. ${SIGNING_SECURITY_NOTE}`,
  tags: SIGNING_TAGS,
  request: { params: SlugParams },
  responses: { 200: jsonContent(dataOf(KbaStepSchema), "The KBA step"), ...errorResponses(400, 403, 404, 409, 410, 429, 503) },
}));

export const handler: AppRouteHandler<typeof route> = async (c) => {
  const data = await getKbaStep(c.var.ctx, { signerId: (await signerByCredential(c.var.ctx, c.req.valid("param").slug, "start identity questions")).signerId });
  c.header("Cache-Control", "private, no-store");
  return c.json({ data }, 200);
};
