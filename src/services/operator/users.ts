import type { RequestContext } from "../../lib/context";
import { SignJWT } from "jose";
import { notFound, unprocessable } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { requireSecret } from "../../lib/secrets";
import { addSeconds, nowIso } from "../../lib/time";
import { SESSION_AUDIENCE, SESSION_ISSUER } from "../../lib/session-token";
import { commitWithOrgAudit } from "../audit/org-chain";
import { normalizeEmail } from "../compose/create-envelope";
import { findMembership, findUser, findUserIdByEmail, membershipUpsert, userInsert } from "../organizations/repository";
import { assertOrgExists } from "./orgs";
import { apiIssue } from "../../lib/validation";

/** Adds a user to an organization with a role; an existing user (same email) joins or changes role. */
export async function addUser(
  ctx: RequestContext,
  input: { orgId: string; email: string; name: string; role: "admin" | "custodian" | "member" },
) {
  const db = ctx.global;
  await assertOrgExists(db, input.orgId);
  const email = normalizeEmail(input.email);
  const at = nowIso();
  const existing = await findUserIdByEmail(db, email);
  const userId = existing?.id ?? newId("user");
  await commitWithOrgAudit(
    db,
    { orgId: input.orgId, action: "membership.granted", actor: ctx.actor, data: { user_id: userId, role: input.role }, at },
    [
      userInsert(db, { id: userId, email, name: input.name, at }),
      membershipUpsert(db, { email, orgId: input.orgId, role: input.role, at }),
    ],
  );
  const row = await findUserIdByEmail(db, email);
  return { user_id: row!.id, org_id: input.orgId, email, role: input.role };
}

export async function issueAccessToken(ctx: RequestContext, input: { userId: string; orgId?: string; ttlSeconds?: number }) {
  const secret = new TextEncoder().encode(requireSecret(ctx.env, "SESSION_JWT_SECRET"));
  const user = await findUser(ctx.global, input.userId);
  if (!user) throw notFound("User");
  if (input.orgId) {
    const member = await findMembership(ctx.global, input.userId, input.orgId);
    if (!member) throw unprocessable("The user is not a member of that organization", [apiIssue(["org_id"], "an organization the user is a member of", input.orgId, "The user is not a member of that organization")]);
  }
  const ttl = input.ttlSeconds ?? 3600;
  const issuedAt = Math.floor(Date.now() / 1000);
  const token = await new SignJWT(input.orgId ? { org_id: input.orgId } : {})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(input.userId)
    .setIssuer(SESSION_ISSUER)
    .setAudience(SESSION_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttl)
    .sign(secret);
  return { access_token: token, token_type: "Bearer", expires_at: addSeconds(new Date(issuedAt * 1000).toISOString(), ttl) };
}
