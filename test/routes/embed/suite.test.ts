// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/embed/suite.test.ts -t "payment-intent"
import { describe } from "vitest";

describe("payment-intent", async () => {
  await import("./payment-intent.spec");
});
describe("payment-journey", async () => {
  await import("./payment-journey.spec");
});
describe("payment-page", async () => {
  await import("./payment-page.spec");
});
describe("payment-request", async () => {
  await import("./payment-request.spec");
});
describe("session", async () => {
  await import("./session.spec");
});
