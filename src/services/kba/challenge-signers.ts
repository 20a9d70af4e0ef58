import type { Env } from "../../env";
import { kbaProvider } from "../../providers/kba";
import type { SignerRow } from "../signers/repository";
import { insertKbaCheck } from "./repository";

/** The lower-cased emails of the organization's members: the signers a KBA send never challenges. */
export async function memberEmails(db: D1Database, orgId: string): Promise<Set<string>> {
  const { results } = await db
    .prepare("SELECT lower(u.email) AS email FROM users u JOIN memberships m ON m.user_id = u.id WHERE m.org_id = ?")
    .bind(orgId)
    .all<{ email: string }>();
  return new Set(results.map((r) => r.email));
}

export type KbaStep = { provider: string; challengedIds: Set<string>; challengedEmails: string[]; statements: D1PreparedStatement[] };

/**
 * The KBA step of a send (DESIGN.md 7): one `required` check per customer-side signer, as statements
 * for the send's batch, and the challenged signer ids for the invitations. A signer whose email
 * belongs to a member of the sending organization (the sender added as a signer, as bulk send's
 * `add_me_as_signer` does) is never challenged nor billed. `kbaProvider` throws the 503 naming
 * KBA_PROVIDER when none is configured, before anything is written.
 */
export function kbaStepFor(env: Env, db: D1Database, input: { envelope: { id: string; org_id: string }; signers: SignerRow[]; members: ReadonlySet<string>; at: string }): KbaStep {
  const provider = kbaProvider(env);
  const { envelope, at } = input;
  const challenged = input.signers.filter((s) => !input.members.has(s.email.trim().toLowerCase()));
  return {
    provider: provider.name,
    challengedIds: new Set(challenged.map((s) => s.id)),
    challengedEmails: challenged.map((s) => s.email),
    statements: challenged.map((s) => insertKbaCheck(db, { signer_id: s.id, envelope_id: envelope.id, org_id: envelope.org_id, provider: provider.name }, at)),
  };
}
