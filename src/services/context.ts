import type { Env } from "../env";

/** What a service verb needs from the outside: the bindings, and a way to finish work after responding. */
export type ServiceContext = {
  env: Env;
  /** hand a just-committed outbox event to the queue (fast path; the relay cron is the safety net) */
  publish: (eventId: string) => void;
};

export function serviceContext(env: Env, waitUntil: (p: Promise<unknown>) => void): ServiceContext {
  return {
    env,
    publish: (eventId) =>
      waitUntil(
        env.WEBHOOK_QUEUE.send({ kind: "event", event_id: eventId }).catch((err: unknown) => {
          console.warn("outbox fast path failed; the relay will pick it up", eventId, err);
        }),
      ),
  };
}
