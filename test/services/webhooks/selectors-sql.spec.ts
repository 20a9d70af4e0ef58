import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../../src/services/events/outbox";
import { EVENT_DOMAINS, selectorMatches, subscribesSql } from "../../../src/services/webhooks/selectors";

// The fan-out matches subscriptions inside its insert (fan-out.ts): an endpoint must get exactly the events
// the selector rules of spec 6.1 give it, so the SQL must agree with selectorMatches on every pair.
describe("subscription selectors in SQL", () => {
  it("agree with selectorMatches for every event type and every kind of selector, valid or not", async () => {
    const types = Object.keys(EVENT_TYPES);
    const selectors = [
      "*",
      ...types,
      ...[...EVENT_DOMAINS].map((d) => `${d}.*`),
      // refused at registration, but the SQL must still not match more than the rule does
      "envelope.",
      "envelope",
      "env*",
      "*.completed",
      "envelope.*.x",
      ".*",
      "",
      "envelope.completedx",
      "ENVELOPE.*",
    ];
    const pairs = selectors.flatMap((selector) => types.map((type) => ({ selector, type })));
    const statement = env.DB.prepare(`SELECT ${subscribesSql("?1", "?2")} AS m`);
    const results = await env.DB.batch<{ m: number }>(pairs.map(({ selector, type }) => statement.bind(JSON.stringify([selector]), type)));
    const disagreements = pairs.filter(({ selector, type }, i) => (results[i]!.results[0]!.m === 1) !== selectorMatches(selector, type));
    expect(disagreements).toEqual([]);
    expect(pairs.length).toBeGreaterThan(100);
  });

  it("match when any selector of the list does, and never for an empty list", async () => {
    const match = async (selectors: string[], type: string) =>
      (await env.DB.prepare(`SELECT ${subscribesSql("?1", "?2")} AS m`).bind(JSON.stringify(selectors), type).first<{ m: number }>())!.m;
    expect(await match(["signer.viewed", "envelope.*"], "envelope.completed")).toBe(1);
    expect(await match(["signer.viewed", "vault.*"], "envelope.completed")).toBe(0);
    expect(await match([], "envelope.completed")).toBe(0);
  });
});
