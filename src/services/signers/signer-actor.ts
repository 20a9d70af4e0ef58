import type { Actor } from "../../lib/actor";
import type { SignerRow } from "./repository";

/** Where a signer's request came from: recorded on every audit entry the signer causes. */
export type RequestOrigin = { ip: string | null; userAgent: string | null };

/** The origin of a request, as the signing surface's middleware put it on `ctx.actor`. */
export const requestOrigin = (actor: Actor): RequestOrigin => ({ ip: actor.ip ?? null, userAgent: actor.userAgent ?? null });

export const signerActor = (signer: Pick<SignerRow, "id">, origin: RequestOrigin): Actor => ({
  type: "signer",
  id: signer.id,
  ip: origin.ip,
  userAgent: origin.userAgent?.slice(0, 512) ?? null,
});

/** Signer facts for events and the audit log; never the slug, which is the signer's credential. */
export const signerData = (s: SignerRow) => ({ signer: { id: s.id, email: s.email, name: s.name, role: s.role, routing_order: s.routing_order } });
