// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/partner/suite.test.ts -t "embed/token"
import { describe } from "vitest";

describe("embed/token", async () => {
  await import("./embed/token.spec");
});
describe("webhook", async () => {
  await import("./webhook.spec");
});
