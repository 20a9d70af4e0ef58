/** Who did it: recorded on every audit entry. */
export type Actor = {
  type: "api_key" | "user" | "operator" | "system" | "signer";
  id: string | null;
  ip?: string | null;
  userAgent?: string | null;
};

export const SYSTEM_ACTOR: Actor = { type: "system", id: null };

/**
 * The console user a console verb acts for: the actor requireMembership put on the context, never an
 * input of the verb, so a route cannot record one user's consent or batch under another's name.
 */
export function actingUserId(actor: Actor): string {
  if (actor.type !== "user" || !actor.id) throw new Error(`A console user's action called with a ${actor.type} actor`);
  return actor.id;
}
