import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { RequestOrigin } from "../../services/signing/signer-actor";

export const SlugParams = z.object({
  slug: z
    .string()
    .min(16)
    .max(128)
    .regex(/^[A-Za-z0-9_-]+$/)
    .openapi({ param: { name: "slug", in: "path" }, description: "The signer's opaque slug from their signing link; it is the only credential" }),
});

/** The signer's address and browser, for the audit log and the signing certificate. */
export const originOf = (c: Context): RequestOrigin => ({
  ip: c.req.header("cf-connecting-ip") ?? null,
  userAgent: c.req.header("user-agent") ?? null,
});

export const SIGNING_TAGS = ["Signing"];
export const SIGNING_SECURITY_NOTE =
  "No API key or session: the slug in the path is the signer's credential (as the link in a DocuSign email). It stops working (410) once the envelope is completed, declined, voided or expired.";
