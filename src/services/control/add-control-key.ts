import { base64url, calculateJwkThumbprint, importJWK, type JWK } from "jose";
import type { OrgContext } from "../../lib/context";
import { ApiError, conflict, type ErrorCodesByStatus, mergeErrorCodes } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { controlJtiInsert, controlKeyInsertGuarded, isControlJtiConflict, listControlKeys, type ControlKeyRow } from "./repository";
import { usedJti, verifyKeySignature } from "./signature";
import { apiIssue } from "../../lib/validation";
import { CONTROL_KEYS_CHANGED_ERRORS } from "./delete-control-key";

/** An organization holds at most this many control keys (each control action is checked against them). */
export const MAX_CONTROL_KEYS = 10;
export const INVALID_CONTROL_KEY = "invalid_control_key";
/** Members that only a private (or symmetric) JWK has. */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

export type ControlKeyAlg = ControlKeyRow["alg"];
export type PublicControlJwk = { kty: "EC" | "OKP"; crv: "P-256" | "Ed25519"; x: string; y?: string };
export type ControlKey = { kid: string; alg: ControlKeyAlg; jwk: PublicControlJwk; created_at: string };

const invalidKey = (message: string, member?: string) =>
  new ApiError(422, message, [apiIssue(member ? ["jwk", member] : ["jwk"], "an ES256 (P-256) or Ed25519 public JWK", member ?? "jwk", message, INVALID_CONTROL_KEY)], INVALID_CONTROL_KEY);

/** 32 bytes, base64url: a P-256 coordinate and an Ed25519 public key alike. */
function coordinate(jwk: Record<string, unknown>, member: "x" | "y"): string {
  const value = jwk[member];
  let bytes: Uint8Array | null = null;
  if (typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value)) {
    try {
      bytes = base64url.decode(value);
    } catch {
      bytes = null;
    }
  }
  if (!bytes || bytes.length !== 32) throw invalidKey(`jwk.${member} must be 32 bytes, base64url-encoded without padding`, member);
  return value as string;
}

/**
 * The public key a partner sent, reduced to its thumbprint members and checked to be a usable ES256
 * (EC P-256) or Ed25519 (OKP) verification key. Anything else is 422 `invalid_control_key`, naming the
 * member at fault: a private key (`d`), another key type or curve, an `alg` or `use` that disagrees.
 */
export async function publicControlKey(jwk: Record<string, unknown>): Promise<{ alg: ControlKeyAlg; jwk: PublicControlJwk }> {
  for (const member of PRIVATE_MEMBERS) {
    if (member in jwk) throw invalidKey(`A control key is a public key: remove the private member "${member}" (never send a private key)`, member);
  }
  if (jwk.use !== undefined && jwk.use !== "sig") throw invalidKey('jwk.use must be "sig" when given', "use");
  let out: { alg: ControlKeyAlg; jwk: PublicControlJwk };
  if (jwk.kty === "EC") {
    if (jwk.crv !== "P-256") throw invalidKey('An EC control key must be on curve "P-256" (ES256)', "crv");
    if (jwk.alg !== undefined && jwk.alg !== "ES256") throw invalidKey('A P-256 control key signs with alg "ES256"', "alg");
    out = { alg: "ES256", jwk: { kty: "EC", crv: "P-256", x: coordinate(jwk, "x"), y: coordinate(jwk, "y") } };
  } else if (jwk.kty === "OKP") {
    if (jwk.crv !== "Ed25519") throw invalidKey('An OKP control key must be on curve "Ed25519"', "crv");
    if (jwk.alg !== undefined && jwk.alg !== "EdDSA" && jwk.alg !== "Ed25519") throw invalidKey('An Ed25519 control key signs with alg "EdDSA" (or "Ed25519")', "alg");
    if (jwk.y !== undefined) throw invalidKey("An Ed25519 key has no y member", "y");
    out = { alg: "EdDSA", jwk: { kty: "OKP", crv: "Ed25519", x: coordinate(jwk, "x") } };
  } else {
    throw invalidKey('jwk.kty must be "EC" (P-256, ES256) or "OKP" (Ed25519)', "kty");
  }
  try {
    await importJWK(out.jwk as JWK, out.alg);
  } catch {
    throw invalidKey("jwk is not a valid public key (not a point on its curve)", "x");
  }
  return out;
}

export const serializeControlKey = (row: ControlKeyRow): ControlKey => ({
  kid: row.kid,
  alg: row.alg,
  jwk: JSON.parse(row.jwk) as PublicControlJwk,
  created_at: row.created_at,
});

/**
 * Registers a control key (docs/control.md). The first key is added on the API key alone; once the
 * organization has one, adding another must carry a Control-Signature by a key it already has over
 * `{ action: "add_key", kid: <the new key's thumbprint>, jti, iat }`, so a stolen API key cannot slip
 * its own key in. The key, its entry on the organization's chain (`control_key.added`, keeping the
 * JWS) and the spent `jti` commit in one batch, guarded on the keys verified: a concurrent change
 * refuses it (409) and spends nothing; the `jti` reused (even by a concurrent request): 403.
 */
export async function addControlKey(ctx: OrgContext, input: { jwk: Record<string, unknown>; signature: string | undefined }): Promise<ControlKey> {
  const { alg, jwk } = await publicControlKey(input.jwk);
  const kid = await calculateJwkThumbprint(jwk as JWK, "sha256");
  const keys = await listControlKeys(ctx.global, ctx.orgId);
  const signature = await verifyKeySignature(ctx.global, { orgId: ctx.orgId, header: input.signature, action: "add_key", kid, keys });
  if (keys.some((k) => k.kid === kid)) throw conflict("This control key is already registered", { kid }, "control_key_exists");
  if (keys.length >= MAX_CONTROL_KEYS) throw conflict(`An organization holds at most ${MAX_CONTROL_KEYS} control keys: delete one first`, { limit: MAX_CONTROL_KEYS }, "control_key_limit");
  const at = nowIso();
  const row: ControlKeyRow = { org_id: ctx.orgId, kid, alg, jwk: JSON.stringify(jwk), created_at: at };
  const statements = [controlKeyInsertGuarded(ctx.global, row, signature?.kid ?? null)];
  if (signature) {
    // spent only if this request's key row is there (created_at is this request's): the add happened
    const added = { sql: "EXISTS (SELECT 1 FROM control_keys WHERE org_id = ? AND kid = ? AND created_at = ?)", params: [ctx.orgId, kid, at] };
    statements.push(controlJtiInsert(ctx.global, { orgId: ctx.orgId, jti: signature.jti, at }, added));
  }
  let inserted: D1Result | undefined;
  try {
    [inserted] = await commitWithOrgAudit(
      ctx.global,
      { orgId: ctx.orgId, action: "control_key.added", actor: ctx.actor, data: { kid, alg, jwk, ...(signature ? { control_signature: { kid: signature.kid, jws: signature.jws } } : {}) }, at },
      statements,
      { guarded: true },
    );
  } catch (err) {
    if (isControlJtiConflict(err)) throw usedJti();
    throw err;
  }
  if (inserted?.meta.changes !== 1) {
    throw conflict("The organization's control keys changed while this key was being added: retry (signed, if it now has a key)", { kid }, "control_keys_changed");
  }
  return serializeControlKey(row);
}

export const ADD_CONTROL_KEY_ERRORS: ErrorCodesByStatus = mergeErrorCodes(CONTROL_KEYS_CHANGED_ERRORS, { 409: ["control_key_exists", "control_key_limit"], 422: [INVALID_CONTROL_KEY] });
