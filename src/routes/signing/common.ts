import { z } from "@hono/zod-openapi";

export const SlugParams = z.object({
  slug: z
    .string()
    .min(16)
    .max(128)
    .regex(/^[A-Za-z0-9_-]+$/)
    .openapi({ param: { name: "slug", in: "path" }, description: "The signer's opaque slug from their signing link; it is the only credential" }),
});

export const SIGNING_TAGS = ["Signing"];
export const SIGNING_SECURITY_NOTE =
  "No API key or session: the slug in the path is the signer's credential (as the link in a DocuSign email). It stops working (410) once the envelope is completed, declined, voided or expired.";
