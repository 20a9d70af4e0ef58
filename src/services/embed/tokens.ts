import { errors, jwtVerify, SignJWT } from "jose";
import type { Env } from "../../env";
import { onShardOf, type OrgContext } from "../../lib/context";
import { ApiError, conflict, type ErrorCodesByStatus, forbidden, PAYMENT_PENDING } from "../../lib/errors";
import { requireSecret } from "../../lib/secrets";
import type { Scope } from "../../lib/scopes";
import { getEnvelope } from "../envelopes/repository";
import { SIGNING_LINK_TTL_SECONDS } from "../signers/signing-links";
import { findUnpaidPayment } from "../payments/payment-gate";
import { LOCALES, type Locale } from "../../db/schema/locales";

export const EMBED_TOKEN_TTL_SECONDS = SIGNING_LINK_TTL_SECONDS;
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
  /** The vault widget's language as the partner asked for it; absent: the organization's `default_locale` */
  locale?: Locale;
  iat: number;
  exp: number;
};

const secretOf = (env: Env) => new TextEncoder().encode(requireSecret(env, "EMBED_TOKEN_SECRET"));

/**
 * Mints a 15-minute HS256 token for one envelope and one widget. The token travels in the URL
 * fragment (`#token=`), which browsers never send to a server, so it stays out of access logs. The
 * path names the widget and the envelope (`{EMBED_HOST}/<widget>/<envelope id>`), so the server can
 * answer the page with that organization's CSP `frame-ancestors` before any script runs.
 */
export async function mintEmbedToken(
  ctx: OrgContext,
  input: { scopes: string[]; envelopeId: string; userEmail: string; widgetType: WidgetType; locale?: Locale; now?: Date },
) {
  const { env, orgId } = ctx;
  const rule = WIDGET_RULES[input.widgetType];
  if (!input.scopes.includes(rule.scope)) throw forbidden(`Missing required scope: ${rule.scope}`);
  const secret = secretOf(env);
  // the envelope id comes in the body, not the path: its own shard, not the organization's current one
  const db = onShardOf(ctx, input.envelopeId).db;
  const envelope = await getEnvelope(db, orgId, input.envelopeId);
  if (input.widgetType === "sign" && envelope.kba_required === 1) {
    throw new ApiError(
      409,
      "This envelope requires knowledge-based authentication: send the signer its signing_url on the signing host instead of embedding it",
      { envelope_id: envelope.id },
      "kba_required",
    );
  }
  // Spec 4.4: a vault widget is refused while a requested payment is unsettled (Sign + Pay), whatever the status.
  if (input.widgetType === "vault" && (await findUnpaidPayment(db, envelope))) {
    throw conflict("A payment requested on this envelope has not been paid yet; the vault widget opens once the payment settles", {
      status: envelope.status,
      widget_type: input.widgetType,
      payment_status: "requires_payment",
    }, PAYMENT_PENDING);
  }
  if (!rule.statuses.includes(envelope.status)) {
    throw conflict(`A ${input.widgetType} widget needs an envelope that is ${rule.describe}; this one is ${envelope.status}`, {
      status: envelope.status,
      widget_type: input.widgetType,
    });
  }
  const iat = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const exp = iat + EMBED_TOKEN_TTL_SECONDS;
  const claims = { envelopeId: envelope.id, orgId, userEmail: input.userEmail, widgetType: input.widgetType, ...(input.locale ? { locale: input.locale } : {}) };
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setAudience(env.EMBED_HOST)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(secret);
  return {
    token,
    expires_at: new Date(exp * 1000).toISOString(),
    embed_url: `${env.EMBED_HOST}/${input.widgetType}/${envelope.id}#token=${token}`,
    widget_type: input.widgetType,
    envelope_id: envelope.id,
  };
}

/** Why a token was refused with 401: the page tells an expired token (ask for a new one) from a bad one. */
export type EmbedTokenFailure = "missing" | "invalid" | "expired";

const refused = (reason: EmbedTokenFailure) =>
  new ApiError(
    401,
    reason === "expired"
      ? "Embed token expired: embed tokens last 15 minutes; ask the partner's site for a new one"
      : reason === "missing"
        ? "Embed token required: send Authorization: Bearer <EMBED_TOKEN>"
        : "Invalid embed token",
    { reason },
  );

const isClaims = (p: Record<string, unknown>): boolean =>
  typeof p.envelopeId === "string" &&
  typeof p.orgId === "string" &&
  typeof p.userEmail === "string" &&
  (WIDGETS as readonly unknown[]).includes(p.widgetType) &&
  (p.locale === undefined || (LOCALES as readonly unknown[]).includes(p.locale));

/**
 * What the embed host accepts: HS256 only (so `none` and other algorithms are refused before the
 * key is used), audience = EMBED_HOST, `exp` and `iat` present and not expired: otherwise 401 with
 * `details.reason` `expired` or `invalid` (which check failed is not said beyond that). A genuine
 * token for another envelope or widget than the page was opened for is 403.
 */
export async function verifyEmbedToken(
  env: Env,
  token: string,
  expect?: { widgetType: WidgetType; envelopeId?: string },
): Promise<EmbedClaims> {
  const secret = secretOf(env);
  let payload;
  try {
    ({ payload } = await jwtVerify(token, secret, { algorithms: ["HS256"], audience: env.EMBED_HOST, requiredClaims: ["exp", "iat"] }));
  } catch (err) {
    throw refused(err instanceof errors.JWTExpired ? "expired" : "invalid");
  }
  if (!isClaims(payload)) throw refused("invalid");
  const claims = payload as unknown as EmbedClaims;
  if (expect) assertEmbedTarget(claims, expect);
  return claims;
}

/** A genuine token opens only the envelope and widget it was minted for: 403 otherwise. */
export function assertEmbedTarget(claims: EmbedClaims, expect: { widgetType: WidgetType; envelopeId?: string }): void {
  if (claims.widgetType !== expect.widgetType || (expect.envelopeId !== undefined && claims.envelopeId !== expect.envelopeId)) {
    throw forbidden("This embed token is for another envelope or widget");
  }
}

/** The token of an `Authorization: Bearer <token>` header; 401 (`reason: missing`) without one. */
export function bearerToken(header: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!match) throw refused("missing");
  return match[1]!;
}

export const EMBED_TOKEN_ERRORS: ErrorCodesByStatus = { 409: ["kba_required", PAYMENT_PENDING] };
