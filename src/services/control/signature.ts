import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from "jose";
import { ApiError } from "../../lib/errors";
import { listControlKeys, type ControlKeyRow } from "./repository";
import type { GlobalDb } from "../../lib/shards";

/** The actions a control signature covers (DESIGN.md 9). */
export type ControlAction = "transfer" | "accept" | "reject" | "cancel" | "release_pledge" | "paid_off" | "paper_out" | "add_key" | "delete_key";

export const CONTROL_SIGNATURE_HEADER = "Control-Signature";
export const SIGNATURE_REQUIRED = "control_signature_required";
export const SIGNATURE_INVALID = "control_signature_invalid";
/** How far `iat` may be from now, either way. */
export const SIGNATURE_WINDOW_SECONDS = 300;

/** What the chain entry keeps of a signed action: the key and the JWS itself, so an auditor can verify it. */
export type ControlSignature = { kid: string; jws: string };

const invalid = (why: string) => new ApiError(403, `Control-Signature is not valid: ${why}`, undefined, SIGNATURE_INVALID);

/**
 * Checks the Control-Signature of an action by `orgId`. An organization without control keys acts on
 * its API key alone: null. One with keys must sign every control action with one of them: a compact
 * JWS (`kid` in its header naming one of its keys) over exactly `expected` plus an `iat` within 5
 * minutes of now. Missing: 403 `control_signature_required`; anything else wrong: 403
 * `control_signature_invalid`. A signature made for another action, record, transfer or organization
 * fails because its payload differs. `keys`: the organization's control keys when the caller has just
 * read them (the key routes), so they are not read twice.
 */
export async function verifyControlSignature(
  db: GlobalDb,
  input: { orgId: string; header: string | undefined; expected: Record<string, unknown> & { action: ControlAction }; now?: Date; keys?: ControlKeyRow[] },
): Promise<ControlSignature | null> {
  const keys = input.keys ?? (await listControlKeys(db, input.orgId));
  if (keys.length === 0) return null;
  const jws = input.header?.trim();
  if (!jws) {
    throw new ApiError(
      403,
      `This organization has control keys: sign the action with one of them in the ${CONTROL_SIGNATURE_HEADER} header (a compact JWS over ${JSON.stringify({ ...input.expected, iat: "<now>" })})`,
      { action: input.expected.action },
      SIGNATURE_REQUIRED,
    );
  }
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(jws).kid;
  } catch {
    throw invalid("not a compact JWS");
  }
  const key = keys.find((k) => k.kid === kid);
  if (!kid || !key) throw invalid("its kid names none of this organization's control keys");
  let payload: Record<string, unknown>;
  try {
    const verified = await compactVerify(jws, await importJWK(JSON.parse(key.jwk) as JWK, key.alg));
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
  } catch {
    throw invalid("the signature does not verify with the key its kid names");
  }
  const now = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const { iat, ...signed } = payload;
  if (typeof iat !== "number" || Math.abs(now - iat) > SIGNATURE_WINDOW_SECONDS) throw invalid(`iat must be within ${SIGNATURE_WINDOW_SECONDS} seconds of now`);
  const want = Object.fromEntries(Object.entries(input.expected).filter(([, v]) => v !== undefined && v !== null));
  const got = Object.fromEntries(Object.entries(signed).filter(([, v]) => v !== undefined && v !== null));
  if (JSON.stringify(sortKeys(got)) !== JSON.stringify(sortKeys(want))) throw invalid(`it was made for ${JSON.stringify(got)}, not this action`);
  return { kid, jws };
}

const sortKeys = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
