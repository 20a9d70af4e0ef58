import type { OutboxEmail } from "../../providers/email";
import type { ShardDb } from "../../lib/shards";
import { nowIso } from "../../lib/time";
import { deliverEmails } from "../email/deliver";
import { selectEnvelopeRoles, selectEnvelopesWithOriginal } from "../documents/repository";
import { loadedEnvelopeOf, selectLoadedEnvelopes, type LoadedEnvelope, type LoadedEnvelopeRow } from "../envelopes/repository";
import { selectEnvelopesWithPayment } from "../payments/repository";
import { bulkSigners, clientOf, isCrash, logGroupFailure, type ChunkItem, type RunState } from "./chunk-state";
import { planBulkSend, type PlannedBulkSend } from "./plan-bulk-send";
import { settleSentItems } from "./repository";

type Facts = { envelopes: Map<string, LoadedEnvelope>; roles: Map<string, string[]>; documents: Set<string>; payments: Set<string> };

/** What `sendEnvelope` reads per envelope (the envelope with its chain head, its roles, its document, a payment), for a whole group in one round trip. */
async function readGroup(db: ShardDb, orgId: string, envelopeIds: string[]): Promise<Facts> {
  const ids = JSON.stringify(envelopeIds);
  const [envelopes, roles, documents, payments] = await db.batch([
    selectLoadedEnvelopes(db, orgId, ids),
    selectEnvelopeRoles(db, ids),
    selectEnvelopesWithOriginal(db, ids),
    selectEnvelopesWithPayment(db, ids),
  ]);
  const facts: Facts = { envelopes: new Map(), roles: new Map(), documents: new Set(), payments: new Set() };
  for (const row of envelopes!.results as LoadedEnvelopeRow[]) {
    const envelope = loadedEnvelopeOf(row)!;
    facts.envelopes.set(envelope.id, envelope);
  }
  for (const r of roles!.results as { envelope_id: string; role: string }[]) facts.roles.set(r.envelope_id, [...(facts.roles.get(r.envelope_id) ?? []), r.role]);
  for (const r of documents!.results as { envelope_id: string }[]) facts.documents.add(r.envelope_id);
  for (const r of payments!.results as { envelope_id: string }[]) facts.payments.add(r.envelope_id);
  return facts;
}

/**
 * Sends a group's `preparing` envelopes and settles its items in one D1 batch (one transaction): each
 * envelope's send statements (plan-bulk-send.ts), then every item whose envelope has left `preparing`
 * marked `sent` with the batch's counters, guarded on the item still `running` and on its envelope's
 * status read inside the same transaction, so a replay or a lost race settles nothing twice. The
 * invitations are delivered after the commit (a crash before that leaves them `queued` in the email
 * outbox, for the retry job). Returns the items this path could not take, for the manual path.
 */
export async function sendGroup(state: RunState, items: ChunkItem[]): Promise<ChunkItem[]> {
  const { ctx, batch, hooks } = state;
  const db = ctx.db;
  const manual: ChunkItem[] = [];
  const settle: ChunkItem[] = [];
  const plans: PlannedBulkSend[] = [];
  try {
    hooks.checkpoint("before_send");
    const facts = items.length > 0 ? await readGroup(db, batch.org_id, items.map((i) => i.envelope_key)) : null;
    for (const item of items) {
      const envelope = facts!.envelopes.get(item.envelope_key);
      if (!envelope) {
        manual.push(item);
        continue;
      }
      if (envelope.status !== "preparing") {
        settle.push(item); // sent before a crash, not yet recorded
        continue;
      }
      let plan: PlannedBulkSend | null = null;
      try {
        plan = await planBulkSend(ctx, {
          envelope,
          facts: { roles: facts!.roles.get(envelope.id) ?? [], hasDocument: facts!.documents.has(envelope.id), hasPayment: facts!.payments.has(envelope.id) },
          orgName: state.orgName,
          signers: bulkSigners(batch, state.master.roles, clientOf(item)!, state.sender, item.phone),
          senderEmail: state.sender.email,
        });
      } catch {
        plan = null; // the manual send answers the same error, and counts the attempt
      }
      if (!plan) {
        manual.push(item);
        continue;
      }
      plans.push(plan);
      settle.push(item);
    }
    if (settle.length > 0) {
      const at = nowIso();
      await db.batch([
        ...plans.flatMap((p) => p.statements),
        ...settleSentItems(db, batch.id, settle.map((i) => i.id), at),
      ]);
      ctx.publish(...plans.flatMap((p) => (p.eventId ? [p.eventId] : [])));
    }
  } catch (err) {
    if (isCrash(err)) throw err;
    logGroupFailure(batch.id, "send", err);
    return items; // nothing of the group's batch was committed: every item goes the manual way
  }
  hooks.checkpoint("sent");
  const emails: OutboxEmail[] = plans.flatMap((p) => p.emails);
  if (emails.length > 0) await deliverEmails(ctx, { emails });
  return manual;
}
