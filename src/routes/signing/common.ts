import { z } from "@hono/zod-openapi";

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
