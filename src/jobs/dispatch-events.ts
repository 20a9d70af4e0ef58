import type { Env, OutboxMessage } from "../env";
import { nowIso } from "../lib/time";

/**
 * Queue consumer for outbox events. Fan-out to webhook endpoints plugs in here (one delivery row per
 * matching endpoint); an event is marked dispatched only once that has committed, so a consumer that
 * crashes mid-batch leaves the event for a retry or the relay.
 */
export async function dispatchEvents(batch: MessageBatch<OutboxMessage>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    try {
      await env.DB.prepare("UPDATE events SET dispatched_at = ? WHERE id = ? AND dispatched_at IS NULL")
        .bind(nowIso(), message.body.event_id)
        .run();
      message.ack();
    } catch (err) {
      console.error("event dispatch failed", message.body.event_id, err);
      message.retry();
    }
  }
}
