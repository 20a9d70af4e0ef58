// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/session/suite-2.test.ts -t "webhooks/deliveries"
import { describe } from "vitest";

describe("webhooks/deliveries", async () => {
  await import("./webhooks/deliveries.spec");
});
describe("webhooks/endpoints", async () => {
  await import("./webhooks/endpoints.spec");
});
