import canonicalize from "canonicalize";
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from "jose";
import { sha256Hex } from "../../lib/crypto";
import { ApiError, type ErrorCodesByStatus } from "../../lib/errors";
import { isControlJtiUsed, listControlKeys, type ControlKeyRow } from "./repository";
import type { GlobalDb } from "../../lib/shards";

/** The actions on a record a control signature covers (docs/control.md and 13). */
export type RecordAction = "transfer" | "accept" | "reject" | "cancel" | "release_pledge" | "paid_off" | "paper_out";
/** The actions on the organization's own control keys. */
export type KeyAction = "add_key" | "delete_key";
export type ControlAction = RecordAction | KeyAction;

export const CONTROL_SIGNATURE_HEADER = "Control-Signature";
export const SIGNATURE_REQUIRED = "control_signature_required";
export const SIGNATURE_INVALID = "control_signature_invalid";
/** How far `iat` may be from now, either way. */
export const SIGNATURE_WINDOW_SECONDS = 300;

/** What the chain entry keeps of a signed action: the key and the JWS itself, so an auditor can verify it. */
export type ControlSignature = { kid: string; jws: string };
/** A record action's signature, with the control sequence it was made at (checked again in the commit). */
export type RecordSignature = ControlSignature & { control_seq: number };
/** A key action's signature, with the `jti` the commit spends. */
export type KeySignature = ControlSignature & { jti: string };

/** What a record action's signature must say, apart from `control_seq` (the record's) and `iat` (the signer's). */
export type RecordClaim = { vault_id: string; action: RecordAction; transfer_id?: string; body_sha256: string };

export const BODY_SHA256_RULE = "the SHA-256 (hex) of the request body as RFC 8785 canonical JSON, of {} when the request has no body";

const invalid = (why: string, details?: Record<string, unknown>) => new ApiError(403, `Control-Signature is not valid: ${why}`, details, SIGNATURE_INVALID);

/** 403 `control_signature_invalid` naming the claims that differ from what this request needs. */
export const signatureMismatch = (mismatch: string[]) =>
  invalid(`it was made for another ${mismatch.join(", ")} than this request's`, { mismatch });

/**
 * `body_sha256` of a request: the SHA-256 (hex) of its JSON body, as parsed from the request, in RFC 8785
 * canonical form (sorted keys, no white space, ECMAScript number and string forms); `{}` for a request
 * without a body. Canonical form is what lets a signer hash the body it sends whatever its serializer.
 */
export function bodySha256(body: unknown): Promise<string> {
  return sha256Hex(canonicalize(body ?? {}) ?? "{}");
}

/**
 * Reads the Control-Signature of an action by `orgId`. An organization without control keys acts on
 * its API key alone: null. One with keys must sign every control action with one of them: a compact
 * JWS (`kid` in its header naming one of its keys) whose payload has an `iat` within 5 minutes of now.
 * Missing: 403 `control_signature_required`, telling the caller `payload` (what to sign). Anything else
 * wrong: 403 `control_signature_invalid`. Answers the key, the JWS and its payload without `iat`; the
 * caller compares the payload with what the request needs.
 */
async function readSignature(
  db: GlobalDb,
  input: { orgId: string; header: string | undefined; payload: Record<string, unknown>; how?: string; now?: Date; keys?: ControlKeyRow[] },
): Promise<(ControlSignature & { signed: Record<string, unknown> }) | null> {
  const keys = input.keys ?? (await listControlKeys(db, input.orgId));
  if (keys.length === 0) return null;
  const jws = input.header?.trim();
  if (!jws) {
    const payload = { ...input.payload, iat: "<now, Unix seconds>" };
    throw new ApiError(
      403,
      `This organization has control keys: sign this request with one of them in the ${CONTROL_SIGNATURE_HEADER} header, a compact JWS (kid in its protected header) over ${JSON.stringify(payload)}${input.how ? `; ${input.how}` : ""}`,
      { action: input.payload.action, payload },
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
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) throw invalid("its payload is not a JSON object");
  const now = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const { iat, ...signed } = payload;
  if (typeof iat !== "number" || Math.abs(now - iat) > SIGNATURE_WINDOW_SECONDS) throw invalid(`iat must be within ${SIGNATURE_WINDOW_SECONDS} seconds of now`);
  return { kid, jws, signed };
}

/** The claims of `signed` that differ from `want` (null and absent alike), extra claims included, in a stable order. */
function mismatches(signed: Record<string, unknown>, want: Record<string, unknown>): string[] {
  const names = [...new Set([...Object.keys(want), ...Object.keys(signed)])];
  return names.filter((name) => (signed[name] ?? null) !== (want[name] ?? null));
}

/**
 * Checks the Control-Signature of an action on a record (docs/control.md): its payload must be exactly
 * `{ vault_id, action, transfer_id? (accept, reject, cancel), control_seq, body_sha256, iat }`, with
 * `control_seq` the record's control sequence as the caller read it (the number of entries of its
 * control history) and `body_sha256` that of this request's body. So a signature is good for one
 * request: another action, record, transfer or body is refused, and once the action commits the
 * record's sequence has moved on. A signature for another sequence, body, transfer or action: 403
 * `control_signature_invalid` with `details.mismatch` naming the claims that differ. The sequence is
 * checked again against the record as the commit finds it (commitControl), so two requests carrying
 * the same signature cannot both commit.
 */
export async function verifyRecordSignature(
  db: GlobalDb,
  input: { orgId: string; header: string | undefined; claim: RecordClaim; controlSeq: number; now?: Date },
): Promise<RecordSignature | null> {
  const { claim } = input;
  const want: Record<string, unknown> = {
    vault_id: claim.vault_id,
    action: claim.action,
    ...(claim.transfer_id ? { transfer_id: claim.transfer_id } : {}),
    control_seq: input.controlSeq,
    body_sha256: claim.body_sha256,
  };
  const read = await readSignature(db, {
    orgId: input.orgId,
    header: input.header,
    payload: want,
    how: `control_seq is the record's current control_seq (GET /partner/vault/${claim.vault_id}); body_sha256 is ${BODY_SHA256_RULE}`,
    now: input.now,
  });
  if (!read) return null;
  const mismatch = mismatches(read.signed, want);
  if (mismatch.length) throw signatureMismatch(mismatch);
  return { kid: read.kid, jws: read.jws, control_seq: input.controlSeq };
}

/** A `jti`: the signer's own unique string. */
const JTI = /^[\x21-\x7e]{8,128}$/;

/**
 * Checks the Control-Signature of a key add or delete (docs/control.md): payload exactly `{ action, kid,
 * jti, iat }`, `kid` the key added or deleted and `jti` a string (8 to 128 printable characters) never
 * used by this organization before; a `jti` is spent by the commit that uses it (controlJtiInsert), so
 * a refused request spends none. A reused `jti`: 403 `control_signature_invalid`. `keys`: the
 * organization's control keys as the caller just read them.
 */
export async function verifyKeySignature(
  db: GlobalDb,
  input: { orgId: string; header: string | undefined; action: KeyAction; kid: string; keys: ControlKeyRow[]; now?: Date },
): Promise<KeySignature | null> {
  const read = await readSignature(db, {
    orgId: input.orgId,
    header: input.header,
    payload: { action: input.action, kid: input.kid, jti: "<a string of 8 to 128 printable characters, never used before>" },
    how: "the jti is good once",
    now: input.now,
    keys: input.keys,
  });
  if (!read) return null;
  const { jti, ...rest } = read.signed;
  const mismatch = mismatches(rest, { action: input.action, kid: input.kid });
  if (typeof jti !== "string" || !JTI.test(jti)) mismatch.push("jti");
  if (mismatch.length) throw signatureMismatch(mismatch);
  if (await isControlJtiUsed(db, input.orgId, jti as string)) throw usedJti();
  return { kid: read.kid, jws: read.jws, jti: jti as string };
}

/** 403 `control_signature_invalid`: the signature's `jti` was spent by an earlier request. */
export const usedJti = () => invalid("its jti was already used: sign each key change over a new jti", { mismatch: ["jti"] });

/** The actions on a pool of records (docs/control.md "Pools"). */
export type PoolAction = "pool_offer" | "pool_accept" | "pool_reject" | "pool_cancel";
/** A pool action's signature, with the `jti` the caller spends. */
export type PoolSignature = KeySignature;

/**
 * Checks the Control-Signature of a pool action (docs/control.md "Pools"): payload exactly `{ action,
 * pool_id?, manifest_sha256?, body_sha256, jti, iat }` (`pool_id` and `manifest_sha256` on an answer to a
 * pool, absent on the offer), `jti` never used by this organization before (spent by the caller once the
 * action is decided, controlJtiInsert). A pool has no control sequence of its own: the `jti` makes the
 * signature good once.
 */
export async function verifyPoolSignature(
  db: GlobalDb,
  input: { orgId: string; header: string | undefined; action: PoolAction; poolId?: string; manifestSha256?: string; body: unknown; now?: Date },
): Promise<PoolSignature | null> {
  const want: Record<string, unknown> = {
    action: input.action,
    ...(input.poolId ? { pool_id: input.poolId, manifest_sha256: input.manifestSha256 } : {}),
    body_sha256: await bodySha256(input.body),
  };
  const read = await readSignature(db, {
    orgId: input.orgId,
    header: input.header,
    payload: { ...want, jti: "<a string of 8 to 128 printable characters, never used before>" },
    how: `body_sha256 is ${BODY_SHA256_RULE}; the jti is good once`,
    now: input.now,
  });
  if (!read) return null;
  const { jti, ...rest } = read.signed;
  const mismatch = mismatches(rest, want);
  if (typeof jti !== "string" || !JTI.test(jti)) mismatch.push("jti");
  if (mismatch.length) throw signatureMismatch(mismatch);
  if (await isControlJtiUsed(db, input.orgId, jti as string)) throw invalid("its jti was already used: sign each pool action over a new jti", { mismatch: ["jti"] });
  return { kid: read.kid, jws: read.jws, jti: jti as string };
}

/** What a request that may need a Control-Signature answers (the organization has control keys). */
export const CONTROL_SIGNATURE_ERRORS: ErrorCodesByStatus = { 403: [SIGNATURE_REQUIRED, SIGNATURE_INVALID] };
