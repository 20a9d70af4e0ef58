// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/services/webhooks/suite.test.ts -t "first-attempts"
import { describe } from "vitest";

describe("first-attempts", async () => {
  await import("./first-attempts.spec");
});
describe("selectors-sql", async () => {
  await import("./selectors-sql.spec");
});
describe("signatures", async () => {
  await import("./signatures.spec");
});
describe("url-policy", async () => {
  await import("./url-policy.spec");
});
