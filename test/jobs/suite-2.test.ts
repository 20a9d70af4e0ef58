// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/jobs/suite-2.test.ts -t "webhook-faults"
import { describe } from "vitest";

describe("webhook-faults", async () => {
  await import("./webhook-faults.spec");
});
describe("webhook-immediate", async () => {
  await import("./webhook-immediate.spec");
});
describe("webhook-many-events", async () => {
  await import("./webhook-many-events.spec");
});
describe("webhook-retries", async () => {
  await import("./webhook-retries.spec");
});
