// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/operator/suite.test.ts -t "api-keys"
import { describe } from "vitest";

describe("api-keys", async () => {
  await import("./api-keys.spec");
});
describe("control-keys", async () => {
  await import("./control-keys.spec");
});
describe("orgs", async () => {
  await import("./orgs.spec");
});
describe("usage", async () => {
  await import("./usage.spec");
});
