import { newShardId, shardOf, type ShardDb } from "../../lib/shards";
import { dispatchedEventInsert, eventInsert } from "./repository";

/** The event types this service emits today; the webhook catalog grows with later capabilities. */
export const EVENT_TYPES = {
  "envelope.created": "An envelope was created (API, console or bulk send).",
  "envelope.sent": "The envelope was sent to its signers.",
  "envelope.voided": "The envelope was voided by the sender; it can no longer be signed.",
  "envelope.expired": "The envelope passed its expiry date before every signer had signed.",
  "envelope.declined": "A signer declined to sign; the envelope is closed.",
  "envelope.completed": "Every signer has signed; carries the values filled into the document.",
  "signer.viewed": "A signer opened the document.",
  "signer.started": "A signer started filling the document.",
  "signer.completed": "A signer finished signing.",
  "signer.declined": "A signer declined, with a reason.",
  "vault.stored": "The authoritative copy was stored in the vault.",
  "vault.tamper_detected": "An integrity check found the authoritative copy altered or missing; downloads of it are refused.",
  "vault.transfer_requested": "The controller of an authoritative copy offered control to another organization (an assignment or a pledge); sent to both.",
  "vault.control_transferred": "A transfer of control was accepted: the receiving organization now controls the authoritative copy; sent to both.",
  "vault.transfer_rejected": "The receiving organization rejected a transfer of control; sent to both.",
  "vault.transfer_cancelled": "The controller cancelled a transfer of control it had offered; sent to both.",
  "vault.transfer_expired": "A transfer of control was neither accepted nor rejected within 7 days; sent to both.",
  "vault.pledge_released": "The secured lender released a pledge: control returned to the pledgor; sent to both.",
  "vault.paid_off": "The controller marked the contract paid off; control of the authoritative copy is closed.",
  "vault.paper_out": "The controller converted the record to paper; the electronic copy is no longer authoritative.",
  "vault.hold_placed": "A legal hold was placed on a vault record; it cannot be destroyed while the hold is in force. Sent to every party of the record.",
  "vault.hold_released": "A legal hold on a vault record was released by whoever placed it. Sent to every party of the record.",
  "vault.destroyed": "A closed vault record was destroyed after its retention period: its files were deleted, its hashes, chain and certificates kept. Sent to every party of the record.",
  "vault.pool_accepted": "A pool of records was accepted and every record in it moved to the receiving organization (one event per pool, none per record); sent to both.",
  "invoice.paid": "The payment requested from a signer (Sign + Pay) succeeded, from the payment processor's notification.",
  "webhook.test": "A test event sent to one endpoint from POST /webhooks/endpoints/:endpoint_id/test; never fanned out.",
  "webhook.endpoint_paused": "A webhook endpoint failed every attempt for 3 days and was paused; nothing is sent to it until an admin resumes it.",
} as const;
export type EventType = keyof typeof EVENT_TYPES;

export type OutboxEvent = { id: string; statement: D1PreparedStatement };

/**
 * A new event. Its row goes on the shard `db`, and its id names that shard (docs/decisions/shards.md 2):
 * an event about an envelope is on the envelope's shard (`shardOf(envelopeId)`, unless `shard` says
 * otherwise); an organization-level event (no envelope: a test ping, an endpoint paused) names its
 * shard (`shard`, the organization's current one).
 */
type NewEvent<T extends string> = { orgId: string; type: T; data: Record<string, unknown>; at: string } & (
  | { envelopeId: string; shard?: number }
  | { envelopeId: null; shard: number }
);

/**
 * An outbox event's condition: a SQL condition (with its parameters) the row is inserted under, evaluated
 * when its statement runs in the batch, for an event owed only if an earlier guarded write of the batch
 * took effect (a pool's completion, pools/move-pool.ts).
 */
type OnlyIf = { onlyIf?: { sql: string; params: unknown[] } };

/** An event row with a fresh id: undispatched (the outbox), or recorded already dispatched (`dispatchedAt`). */
function newEvent(db: ShardDb, input: NewEvent<string> & OnlyIf, dispatched: boolean): OutboxEvent {
  const id = newShardId("event", input.shard ?? shardOf(input.envelopeId!));
  const row = { id, orgId: input.orgId, envelopeId: input.envelopeId, type: input.type, data: JSON.stringify(input.data), createdAt: input.at };
  return { id, statement: dispatched ? dispatchedEventInsert(db, { ...row, dispatchedAt: input.at }) : eventInsert(db, row, input.onlyIf) };
}

/** The INSERT of one outbox event, to be put in the same D1 batch as the change it reports. */
export const outboxInsert = (db: ShardDb, input: NewEvent<EventType> & OnlyIf): OutboxEvent => newEvent(db, input, false);

/** Event types written to the envelope's timeline only: recorded already dispatched, never fanned out to webhooks. */
export const TIMELINE_TYPES = ["kba.verified"] as const;
export type TimelineType = (typeof TIMELINE_TYPES)[number];

/** The INSERT of one timeline event (`dispatched_at = at`, so the dispatch never picks it up), for the change's batch. */
export const timelineInsert = (db: ShardDb, input: NewEvent<TimelineType>): OutboxEvent => newEvent(db, input, true);
