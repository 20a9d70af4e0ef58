import { jwtVerify, SignJWT } from "jose";
import type { Env } from "../../env";
import { ApiError, conflict, forbidden } from "../../lib/errors";
import { requireSecret } from "../../lib/secrets";
import type { Scope } from "../../middleware/partner-auth";
import { getEnvelope } from "../envelopes/repository";

export const EMBED_TOKEN_TTL_SECONDS = 900;
export const WIDGETS = ["sign", "vault"] as const;
export type WidgetType = (typeof WIDGETS)[number];

/** Scope and envelope statuses each widget needs (spec 4.4). */
const WIDGET_RULES: Record<WidgetType, { scope: Scope; statuses: readonly string[]; describe: string }> = {
  sign: { scope: "esign:write", statuses: ["sent", "viewed"], describe: "sent or viewed" },
  vault: { scope: "vault:read", statuses: ["vaulted"], describe: "vaulted" },
};

export type EmbedClaims = {
  envelopeId: string;
  orgId: string;
  userEmail: string;
  widgetType: WidgetType;
  iat: number;
  exp: number;
};

const secretOf = (env: Env) => new TextEncoder().encode(requireSecret(env, "EMBED_TOKEN_SECRET"));

/**
 * Mints a 15-minute HS256 token for one envelope and one widget. The token travels in the URL
 * fragment (`#token=`), which browsers never send to a server, so it stays out of access logs.
 */
export async function mintEmbedToken(
  env: Env,
  input: { orgId: string; scopes: string[]; envelopeId: string; userEmail: string; widgetType: WidgetType; now?: Date },
) {
  const rule = WIDGET_RULES[input.widgetType];
  if (!input.scopes.includes(rule.scope)) throw forbidden(`Missing required scope: ${rule.scope}`);
  const secret = secretOf(env);
  const envelope = await getEnvelope(env.DB, input.orgId, input.envelopeId);
  if (input.widgetType === "sign" && envelope.kba_required === 1) {
    throw new ApiError(
      409,
      "This envelope requires knowledge-based authentication: send the signer its signing_url on the signing host instead of embedding it",
      { envelope_id: envelope.id },
      "kba_required",
    );
  }
  if (!rule.statuses.includes(envelope.status)) {
    throw conflict(`A ${input.widgetType} widget needs an envelope that is ${rule.describe}; this one is ${envelope.status}`, {
      status: envelope.status,
      widget_type: input.widgetType,
    });
  }
  const iat = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const exp = iat + EMBED_TOKEN_TTL_SECONDS;
  const claims = { envelopeId: envelope.id, orgId: input.orgId, userEmail: input.userEmail, widgetType: input.widgetType };
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setAudience(env.EMBED_HOST)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(secret);
  return {
    token,
    expires_at: new Date(exp * 1000).toISOString(),
    embed_url: `${env.EMBED_HOST}/${input.widgetType}#token=${token}`,
    widget_type: input.widgetType,
    envelope_id: envelope.id,
  };
}

/**
 * What the embed host accepts: HS256 only, audience = EMBED_HOST, not expired, and exactly the
 * envelope and widget the page is for. Anything else is 401 without saying which check failed.
 */
export async function verifyEmbedToken(
  env: Env,
  token: string,
  expect: { widgetType: WidgetType; envelopeId?: string },
): Promise<EmbedClaims> {
  const secret = secretOf(env);
  let payload;
  try {
    ({ payload } = await jwtVerify(token, secret, { algorithms: ["HS256"], audience: env.EMBED_HOST, requiredClaims: ["exp", "iat"] }));
  } catch {
    throw new ApiError(401, "Invalid or expired embed token");
  }
  const claims = payload as unknown as EmbedClaims;
  const wrongWidget = claims.widgetType !== expect.widgetType;
  const wrongEnvelope = expect.envelopeId !== undefined && claims.envelopeId !== expect.envelopeId;
  if (wrongWidget || wrongEnvelope || typeof claims.orgId !== "string" || typeof claims.envelopeId !== "string") {
    throw new ApiError(401, "Invalid or expired embed token");
  }
  return claims;
}
