import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../lib/hono";

/**
 * The signer API (`/signing/:slug/*`): the slug in the path is the credential, checked by the service
 * that loads it, which also derives the signer actor from it. Here the context only learns where the
 * request came from (address and browser), for the audit log and the signing certificate.
 */
export const signerContext = createMiddleware<AppEnv>(async (c, next) => {
  c.set("ctx", {
    ...c.var.ctx,
    actor: { type: "signer", id: null, ip: c.req.header("cf-connecting-ip") ?? null, userAgent: c.req.header("user-agent") ?? null },
  });
  await next();
});
