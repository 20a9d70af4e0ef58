import { inject } from "vitest";
import type { OutboxMessage } from "../../src/env";
import type { EventType } from "../../src/services/events/outbox";
import { newShardId } from "../../src/lib/shards";
import { orgAnchorInsert } from "../../src/services/shards/repository";
import type { AttemptRow } from "../../src/services/webhooks/repository";
import type { DeliveryRow } from "../../src/services/webhooks/repository";
import { call, newTenant, operator } from "./api";
import { allShardDbs, orgShardNumber, shardDb, shardDbOf } from "./shards";

/** What the receiver (test/global/webhook-receiver.mjs) recorded for one request. */
export type Received = { method: string; path: string; headers: Record<string, string>; body: string; received_at: number };

const receiverBase = () => `http://127.0.0.1:${inject("receiverPort")}`;

/** A fresh path on the real receiver with the given behaviour (`ok`, `fail`, `hang`, `flaky`, ...). */
export function receiverUrl(behaviour: string) {
  const path = `/${behaviour}/${crypto.randomUUID()}`;
  return { url: `${receiverBase()}${path}`, path };
}

export async function received(path: string): Promise<Received[]> {
  const res = await fetch(`${receiverBase()}/_records?path=${encodeURIComponent(path)}`);
  return (await res.json()) as Received[];
}

/** Polls the receiver until `path` has seen at least `count` requests (the queue runs on its own). */
export async function waitForRequests(path: string, count: number, timeoutMs = 60_000): Promise<Received[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = await received(path);
    if (list.length >= count || Date.now() > deadline) return list;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An admin of the organization with a console access token, as the operator would mint it. */
export async function adminToken(orgId: string, role: "admin" | "custodian" | "member" = "admin"): Promise<string> {
  const user = await operator("POST", `/orgs/${orgId}/users`, { email: `${role}-${crypto.randomUUID()}@example.com`, name: `Webhook ${role}`, role });
  const token = await operator("POST", `/users/${user.body.data.user_id}/access-tokens`, { org_id: orgId, ttl_seconds: 3600 });
  return token.body.data.access_token as string;
}

export async function createEndpoint(token: string, body: { url: string; events?: string[]; description?: string }) {
  const res = await call("POST", "/webhooks/endpoints", { bearer: token, body: { events: ["*"], ...body } });
  if (res.status !== 201) throw new Error(`endpoint create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { endpoint_id: string; secret: string; url: string; events: string[] };
}

/** A fresh organization, an admin token, and one endpoint on a fresh receiver path. */
export async function tenantWithEndpoint(behaviour: string, events?: string[]) {
  const t = await newTenant();
  const token = await adminToken(t.orgId);
  const target = receiverUrl(behaviour);
  const ep = await createEndpoint(token, { url: target.url, ...(events ? { events } : {}) });
  return { t, token, target, ep };
}

/**
 * An outbox event written straight to the table, not published: the test decides who dispatches it. It
 * is an org-level event, so it goes on the organization's current shard, its id naming that shard; or on
 * shard `onShard` (with the organization's anchor there), as a transfer's event to another organization
 * lives on the record's shard.
 */
export async function insertEvent(orgId: string, type: EventType = "envelope.completed", data: Record<string, unknown> = { note: "test" }, onShard?: number) {
  const shard = onShard ?? (await orgShardNumber(orgId));
  const db = shardDb(shard);
  const id = newShardId("event", shard);
  const at = new Date().toISOString();
  await db.batch([
    orgAnchorInsert(db, orgId, at),
    db.prepare("INSERT INTO events (id, org_id, envelope_id, type, data, created_at) VALUES (?, ?, NULL, ?, ?, ?)").bind(id, orgId, type, JSON.stringify(data), at),
  ]);
  return id;
}

export async function deliveriesOf(endpointId: string) {
  const results: DeliveryRow[] = [];
  for (const db of allShardDbs()) results.push(...(await db.prepare("SELECT * FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY created_at, id").bind(endpointId).all<DeliveryRow>()).results);
  return results.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export async function attemptsOf(deliveryId: string) {
  const { results } = await shardDbOf(deliveryId).prepare("SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt").bind(deliveryId).all<AttemptRow>();
  return results;
}

/** A queue stand-in that keeps what is sent, so the test decides when (and whether) the consumer runs. */
export function recordingQueue() {
  const sent: OutboxMessage[] = [];
  const queue = {
    send: async (body: OutboxMessage) => void sent.push(body),
    sendBatch: async (batch: Iterable<{ body: OutboxMessage }>) => void sent.push(...[...batch].map((m) => m.body)),
  } as unknown as Queue<OutboxMessage>;
  return { queue, sent };
}
