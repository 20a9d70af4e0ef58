import { describe, expect, it } from "vitest";
import webhooksGuide from "../docs/webhooks.md?raw";
import { EVENT_TYPES } from "../src/services/events/outbox";

/** What a reader is told matches what the service does. */
describe("the receiver's guide (docs/webhooks.md)", () => {
  it("lists exactly the event types the service emits, in its catalog table", () => {
    const catalog = webhooksGuide.slice(webhooksGuide.indexOf("## Event catalog"));
    const listed = [...catalog.matchAll(/^\| `([a-z_]+\.[a-z_]+)` \|/gm)].map((m) => m[1]);
    expect([...listed].sort()).toEqual(Object.keys(EVENT_TYPES).sort());
  });
});
