import { createMiddleware } from "hono/factory";
import { onCurrentShard } from "../lib/context";
import { jwtVerify } from "jose";
import { forbidden, unauthorized } from "../lib/errors";
import type { AppEnv, OrgMembership } from "../lib/hono";
import { requireSecret } from "../lib/secrets";
import { SESSION_AUDIENCE, SESSION_ISSUER } from "../lib/session-token";
import { getMembershipRole } from "../services/organizations/repository";


/**
 * Console access tokens: HS256 JWTs signed with SESSION_JWT_SECRET. The algorithm, issuer and
 * audience are pinned, so a token minted for another purpose (an embed token, say) is refused.
 */
export const sessionAuth = createMiddleware<AppEnv>(async (c, next) => {
  const secret = new TextEncoder().encode(requireSecret(c.env, "SESSION_JWT_SECRET"));
  const header = c.req.header("authorization") ?? "";
  if (!header.startsWith("Bearer ")) throw unauthorized("Access token required: send Authorization: Bearer <ACCESS_TOKEN>");
  let payload;
  try {
    ({ payload } = await jwtVerify(header.slice(7), secret, {
      algorithms: ["HS256"],
      issuer: SESSION_ISSUER,
      audience: SESSION_AUDIENCE,
    }));
  } catch {
    throw unauthorized("Invalid or expired access token");
  }
  if (typeof payload.sub !== "string") throw unauthorized("Invalid or expired access token");
  c.set("session", { userId: payload.sub, orgId: typeof payload.org_id === "string" ? payload.org_id : null });
  await next();
});

/**
 * Resolves the organization the request acts in: `X-Org-Id` when sent, else the token's org. The user
 * must be a member; a user who is not is told the organization is not found (no existence leak).
 */
export function requireMembership(roles?: OrgMembership["role"][]) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const orgId = c.req.header("x-org-id") ?? c.var.session.orgId;
    if (!orgId) throw forbidden("Organization required: send X-Org-Id");
    const row = await getMembershipRole(c.var.ctx.global, c.var.session.userId, orgId);
    if (!row) throw forbidden("You are not a member of this organization");
    if (roles && !roles.includes(row.role)) {
      throw forbidden(`This action requires the ${roles.join(" or ")} role; you are ${row.role}`);
    }
    c.set("membership", { orgId, role: row.role });
    c.set("ctx", {
      ...onCurrentShard(c.var.ctx, row.current_shard_id),
      orgId,
      actor: {
        type: "user",
        id: c.var.session.userId,
        ip: c.req.header("cf-connecting-ip") ?? null,
        userAgent: c.req.header("user-agent")?.slice(0, 300) ?? null,
      },
    });
    await next();
  });
}
