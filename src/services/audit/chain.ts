import { canonicalJson, sha256Hex } from "../../lib/crypto";
import { newId } from "../../lib/ids";
import type { Actor } from "../../lib/actor";
import type { AuditAction } from "./actions";
import { auditLogInsert, findChainHead } from "./repository";

/** Hash of the entry before the first one of every chain. */
export const GENESIS_HASH = "0".repeat(64);

export type AuditEntry = {
  id: string;
  org_id: string;
  chain_id: string;
  seq: number;
  /** an AuditAction when written; a stored row keeps whatever its writer recorded */
  action: string;
  actor_type: Actor["type"];
  actor_id: string | null;
  ip: string | null;
  user_agent: string | null;
  data: Record<string, unknown>;
  created_at: string;
  prev_hash: string;
};

/** The hash covers every column but the hash itself, in canonical form. */
export function hashEntry(entry: AuditEntry): Promise<string> {
  return sha256Hex(canonicalJson(entry));
}

export type ChainHead = { seq: number; hash: string };

/**
 * Builds the INSERT for the next entry of a chain. The (chain_id, seq) unique index makes two writers
 * that read the same head collide: the second batch fails whole, so the chain never forks.
 */
export async function auditInsert(
  db: D1Database,
  input: {
    orgId: string;
    chainId: string;
    head: ChainHead;
    action: AuditAction;
    actor: Actor;
    data: Record<string, unknown>;
    at: string;
    /**
     * The entry records the statement placed just before it in the batch, a guarded UPDATE: it is
     * written only if that UPDATE changed a row (`changes()`), so a write that lost its guard leaves
     * no entry for a change that never happened.
     */
    onlyIfPreviousChanged?: boolean;
  },
): Promise<{ statement: D1PreparedStatement; head: ChainHead; entryId: string }> {
  const entry: AuditEntry = {
    id: newId("audit"),
    org_id: input.orgId,
    chain_id: input.chainId,
    seq: input.head.seq + 1,
    action: input.action,
    actor_type: input.actor.type,
    actor_id: input.actor.id,
    ip: input.actor.ip ?? null,
    user_agent: input.actor.userAgent ?? null,
    data: input.data,
    created_at: input.at,
    prev_hash: input.head.hash,
  };
  const hash = await hashEntry(entry);
  const statement = auditLogInsert(db, { ...entry, data: JSON.stringify(entry.data), hash }, input.onlyIfPreviousChanged ?? false);
  return { statement, head: { seq: entry.seq, hash }, entryId: entry.id };
}

export async function readChainHead(db: D1Database, chainId: string): Promise<ChainHead> {
  const row = await findChainHead(db, chainId);
  return row ?? { seq: 0, hash: GENESIS_HASH };
}

export function isChainConflict(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed: audit_log\.chain_id, audit_log\.seq/.test(err.message);
}
