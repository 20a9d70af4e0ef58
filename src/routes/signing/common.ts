import { type RouteConfig, z } from "@hono/zod-openapi";
import { clientThrottle } from "../../middleware/client-throttle";
import { signerContext } from "../../middleware/signer-context";
import { ERROR_CODES_KEY, mergeErrorCodes, type ErrorCodesByStatus } from "../../lib/openapi";
import { publicRoute } from "../define";

export const SlugParams = z.object({
  slug: z
    .string()
    .min(16)
    .max(128)
    .regex(/^[A-Za-z0-9_-]+$/)
    .openapi({
      param: { name: "slug", in: "path" },
      description:
        "The signer's credential: the permanent slug of their invitation link, or a short-lived signing session (`es_…`, from the signing links or the embed session) that stands for it and answers 410 `signing_session_expired` once it ends",
    }),
});

export const SIGNING_TAGS = ["Signing"];
export const SIGNING_SECURITY_NOTE =
  "No API key or session: the slug in the path is the signer's credential (as the link in a DocuSign email), or a short-lived signing session standing for it. It stops working (410) once the envelope is completed, declined, voided or expired.";

/**
 * What a signer route may answer for its credential: an ended signing session (every route declares 410), a
 * view-only session refused a write (the routes that write declare 403; a read never answers it).
 */
const SIGNER_ERROR_CODES: ErrorCodesByStatus = { 410: ["signing_session_expired"], 403: ["view_only_session"] };
const answered = (codes: ErrorCodesByStatus, responses: RouteConfig["responses"]): ErrorCodesByStatus =>
  Object.fromEntries(Object.entries(codes).filter(([status]) => status in responses));

/**
 * Signer routes: public to tools (`security: []`, the slug in the path is the credential, resolved by
 * the verb), flood-limited per address, then the signer actor is put on the context.
 */
export function signerRoute<R extends RouteConfig>(route: R): R {
  const codes = { [ERROR_CODES_KEY]: mergeErrorCodes((route as { [ERROR_CODES_KEY]?: ErrorCodesByStatus })[ERROR_CODES_KEY], answered(SIGNER_ERROR_CODES, route.responses)) };
  return publicRoute({ ...route, ...codes, tags: route.tags ?? SIGNING_TAGS }, [clientThrottle, signerContext]);
}
