import { conflict } from "../../lib/errors";
import type { Actor } from "../../lib/actor";
import { auditInsert, isChainConflict, readChainHead } from "./chain";

/**
 * Appends an org-level audit entry (chain_id = org id) in one batch with the change it records. Two
 * writers racing for the same sequence number collide on the unique index; the loser re-reads the
 * head and tries again after a short random pause, so the change and its entry still commit
 * together. Under heavy contention it gives up with a 409 the caller can retry, never a 500.
 */
const MAX_ATTEMPTS = 8;

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
      if (!isChainConflict(err)) throw err;
      if (attempt >= MAX_ATTEMPTS - 1) throw conflict("The organization is busy with concurrent changes; retry");
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * (attempt + 1)));
    }
  }
}
