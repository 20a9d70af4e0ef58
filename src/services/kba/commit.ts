import type { RequestContext } from "../../lib/context";
import { isChainConflict } from "../audit/chain";
import { isKbaConstraint } from "./repository";

/** A guard of a KBA batch refused it: the check or session had already moved (a replay or a race). */
const isKbaGuard = (err: unknown) =>
  isKbaConstraint(err) || (err instanceof Error && /NOT NULL constraint failed: kba_(checks|sessions)\.status/.test(err.message));

/**
 * Commits a KBA change in one D1 batch. `build` reads the current state and returns the statements,
 * its first ones being the SQL guards (a status set to NULL, which NOT NULL refuses, when the row is
 * no longer in the state read; unique keys on the result, the scored attempt and the usage line). A
 * guard failing fails the whole batch: nothing is recorded or billed twice; returns false. A collision
 * on the envelope's audit chain (another signer acted meanwhile) builds again from fresh reads.
 */
export async function commitKba(ctx: RequestContext, build: () => Promise<D1PreparedStatement[]>): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const statements = await build();
    try {
      await ctx.db.batch(statements);
      return true;
    } catch (err) {
      if (isKbaGuard(err)) return false;
      if (!isChainConflict(err) || attempt >= 4) throw err;
    }
  }
}
