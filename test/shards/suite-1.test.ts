// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/shards/suite-1.test.ts -t "bulk-shards"
import { describe } from "vitest";

describe("bulk-shards", async () => {
  await import("./bulk-shards.spec");
});
describe("conventions", async () => {
  await import("./conventions.spec");
});
describe("crons-shards", async () => {
  await import("./crons-shards.spec");
});
describe("envelopes-shards", async () => {
  await import("./envelopes-shards.spec");
});
describe("operator-customers", async () => {
  await import("./operator-customers.spec");
});
describe("operator-idempotency-prune", async () => {
  await import("./operator-idempotency-prune.spec");
});
describe("operator-limiter-reload", async () => {
  await import("./operator-limiter-reload.spec");
});
describe("operator-shards", async () => {
  await import("./operator-shards.spec");
});
