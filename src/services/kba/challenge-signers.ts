import type { Env } from "../../env";
import { kbaProvider } from "../../providers/kba";
import type { SignerRow } from "../signers/repository";
import { insertKbaCheck } from "./repository";

/**
 * Which signers of a KBA envelope answer identity questions: the customer-side ones. A signer whose
 * email belongs to a member of the sending organization (the sender added as a signer, as bulk send's
 * `add_me_as_signer` does) is never challenged nor billed.
 */
export async function customerSideSigners<S extends Pick<SignerRow, "email">>(db: D1Database, orgId: string, signers: S[]): Promise<S[]> {
  const { results } = await db
    .prepare("SELECT lower(u.email) AS email FROM users u JOIN memberships m ON m.user_id = u.id WHERE m.org_id = ?")
    .bind(orgId)
    .all<{ email: string }>();
  const members = new Set(results.map((r) => r.email));
  return signers.filter((s) => !members.has(s.email.trim().toLowerCase()));
}

/**
 * The KBA step of a send (DESIGN.md 7): the configured provider (503 naming KBA_PROVIDER when there is
 * none, before anything is written) and one `required` check per customer-side signer, as statements
 * for the send's batch. Returns the challenged signer ids too, for the invitations.
 */
export async function planKbaStep(env: Env, db: D1Database, envelope: { id: string; org_id: string }, signers: SignerRow[], at: string) {
  const provider = kbaProvider(env);
  const challenged = await customerSideSigners(db, envelope.org_id, signers);
  return {
    provider: provider.name,
    challengedIds: new Set(challenged.map((s) => s.id)),
    challengedEmails: challenged.map((s) => s.email),
    statements: challenged.map((s) => insertKbaCheck(db, { signer_id: s.id, envelope_id: envelope.id, org_id: envelope.org_id, provider: provider.name }, at)),
  };
}
