import type { GlobalDb } from "../../lib/shards";
import { conflict } from "../../lib/errors";
import { ORG_CHAIN_ATTEMPTS, retryRaces } from "../../lib/retry";
import type { Actor } from "../../lib/actor";
import type { AuditAction } from "./actions";
import { auditInsert, isChainConflict, readChainHead, type ChainHead } from "./chain";

/**
 * Appends an org-level audit entry (chain_id = org id) in one batch with the change it records. Two
 * writers racing for the same sequence number collide on the unique index; the loser re-reads the
 * head and tries again under the one retry policy (lib/retry.ts: full jitter, capped), so 50
 * writers to one organization spread out and every one commits within a few seconds: an operator
 * importing a book of customers needs no backoff loop of its own. Only past the bound (40 attempts, at
 * most about 14 s of pauses, far beyond any real contention) does it give up with a 409 the caller can
 * retry, never a 500.
 *
 * `guarded`: the first statement is an UPDATE guarded on the state the caller read; the entry is
 * written only if it changed a row, so a write that lost its guard leaves no entry behind.
 *
 * Every entry also advances the organization's own record of its chain (`audit_seq`, `audit_head_hash`)
 * in the same batch, as an envelope's `audit_seq` advances with its entries: deleting the newest
 * entries leaves a chain that links perfectly, and only that record says they existed (verifyChain).
 */
export async function commitWithOrgAudit(
  db: GlobalDb,
  input: { orgId: string; action: AuditAction; actor: Actor; data: Record<string, unknown>; at: string },
  statements: D1PreparedStatement[],
  opts: { guarded?: boolean } = {},
): Promise<D1Result[]> {
  return retryRaces(
    async () => {
      const head = await readChainHead(db, input.orgId);
      const audit = await auditInsert(db, { ...input, chainId: input.orgId, head, onlyIfPreviousChanged: opts.guarded === true });
      const advance = advanceOrgHead(db, input.orgId, head, audit.head, audit.entryId);
      // A guarded entry follows its UPDATE directly (changes() reads the statement just before it); results keep the callers' indexes.
      const batch = opts.guarded
        ? [statements[0]!, audit.statement, advance, ...statements.slice(1)]
        : [...statements, audit.statement, advance];
      const results = await db.batch(batch);
      return opts.guarded ? [results[0]!, ...results.slice(3), results[1]!] : results.slice(0, -1);
    },
    isChainConflict,
    () => conflict("The organization is busy with concurrent changes; retry"),
    ORG_CHAIN_ATTEMPTS,
  );
}

/**
 * Moves the organization's chain record from `from` to `to`, only if the entry was written (a guarded
 * write that lost its guard writes none) and only from the head this entry links to. A record that
 * disagrees with the chain (entries deleted since) is left as it is: the write still commits, and the
 * chain then fails verification instead of being silently re-based on the truncated head. The
 * organization row of an org.created entry is inserted earlier in the same batch.
 */
// SQL exception: the organization's record of its chain head moves in the batch of each entry, like
// an envelope's `audit_seq`; it is the chain's own bookkeeping, not the organization's data.
function advanceOrgHead(db: GlobalDb, orgId: string, from: ChainHead, to: ChainHead, entryId: string): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE organizations SET audit_seq = ?, audit_head_hash = ?
       WHERE id = ? AND audit_seq = ? AND EXISTS (SELECT 1 FROM audit_log WHERE id = ?)`,
    )
    .bind(to.seq, to.hash, orgId, from.seq, entryId);
}
