import { createMiddleware } from "hono/factory";
import type { Env } from "../env";
import { inOrg, onShardOf, type OrgContext } from "../lib/context";
import type { AppEnv } from "../lib/hono";
import { bearerToken, verifyEmbedToken, type EmbedClaims } from "../services/embed/tokens";

/** The embed host's routes: the verified token's claims beside the context, which is in its organization. */
export type EmbedEnv = {
  Bindings: Env;
  Variables: Omit<AppEnv["Variables"], "ctx"> & { ctx: OrgContext; embed: EmbedClaims };
};

/**
 * `Authorization: Bearer <EMBED_TOKEN>`: a genuine, unexpired token (401 with `details.reason`
 * otherwise) puts its claims on `c.var.embed` and its organization on the context. Whether it is for
 * the envelope and widget the page asks for (403) is the service's check. The session writes nothing,
 * so the actor stays the system one. The request works on the shard the token's envelope id names
 * (docs/decisions/shards.md 2): every embed route reads that envelope, and no route path names it.
 */
export const embedAuth = createMiddleware<EmbedEnv>(async (c, next) => {
  const claims = await verifyEmbedToken(c.env, bearerToken(c.req.header("authorization")));
  c.set("embed", claims);
  c.set("ctx", onShardOf(inOrg(c.var.ctx, claims.orgId), claims.envelopeId));
  await next();
});
