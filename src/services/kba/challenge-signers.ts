import type { Env } from "../../env";
import type { Actor } from "../../lib/actor";
import type { GlobalDb } from "../../lib/shards";
import { kbaProvider } from "../../providers/kba";
import { getUserEmailLower } from "../organizations/repository";
import type { SignerRow } from "../signers/repository";
import { insertKbaCheck } from "./repository";
import type { ShardDb } from "../../lib/shards";

/**
 * The lower-cased email of the person who sends: the console user acting (a member sending from the
 * console, or a bulk batch's creator, whose ctx acts as that user). A partner API key is nobody's
 * identity, so a key's send has no sender to spare: every signer is challenged. Only the sender is
 * spared (spec 4.8, part 3): any other member of the organization signing is verified like anyone.
 * `users` is a global table: pass `ctx.global`.
 */
export async function senderEmailOf(global: GlobalDb, actor: Actor): Promise<string | null> {
  if (actor.type !== "user" || !actor.id) return null;
  return getUserEmailLower(global, actor.id);
}

export type KbaStep = { provider: string; challengedIds: Set<string>; challengedEmails: string[]; statements: D1PreparedStatement[] };

/**
 * The KBA step of a send (docs/decisions/sign-and-pay.md): one `required` check per signer other than the sender, as
 * statements for the send's batch, and the challenged signer ids for the invitations. The sender added
 * as a signer (bulk send's `add_me_as_signer`, or a member sending an envelope they also sign) is
 * never challenged nor billed; another member of the organization is a signer like any other.
 * `kbaProvider` throws the 503 naming KBA_PROVIDER when none is configured, before anything is written.
 */
export function kbaStepFor(env: Env, db: ShardDb, input: { envelope: { id: string; org_id: string }; signers: SignerRow[]; senderEmail: string | null; at: string }): KbaStep {
  const provider = kbaProvider(env);
  const { envelope, at } = input;
  const sender = input.senderEmail?.trim().toLowerCase() ?? null;
  const challenged = input.signers.filter((s) => s.email.trim().toLowerCase() !== sender);
  return {
    provider: provider.name,
    challengedIds: new Set(challenged.map((s) => s.id)),
    challengedEmails: challenged.map((s) => s.email),
    statements: challenged.map((s) => insertKbaCheck(db, { signer_id: s.id, envelope_id: envelope.id, org_id: envelope.org_id, provider: provider.name }, at)),
  };
}
