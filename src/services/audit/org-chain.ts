import type { Actor } from "./actor";
import { auditInsert, isChainConflict, readChainHead } from "./chain";

/**
 * Appends an org-level audit entry (chain_id = org id) in one batch with the change it records. Two
 * writers racing for the same sequence number collide on the unique index; the loser re-reads the
 * head and tries again, so the change and its entry still commit together.
 */
export async function commitWithOrgAudit(
  db: D1Database,
  input: { orgId: string; action: string; actor: Actor; data: Record<string, unknown>; at: string },
  statements: D1PreparedStatement[],
): Promise<D1Result[]> {
  for (let attempt = 0; ; attempt++) {
    const head = await readChainHead(db, input.orgId);
    const audit = await auditInsert(db, { ...input, chainId: input.orgId, head });
    try {
      return await db.batch([...statements, audit.statement]);
    } catch (err) {
      if (!isChainConflict(err) || attempt >= 4) throw err;
    }
  }
}
