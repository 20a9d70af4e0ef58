/** Who did it: recorded on every audit entry. */
export type Actor = {
  type: "api_key" | "user" | "operator" | "system" | "signer";
  id: string | null;
  ip?: string | null;
  userAgent?: string | null;
};

export const SYSTEM_ACTOR: Actor = { type: "system", id: null };
