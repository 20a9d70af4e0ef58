// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/suite.test.ts -t "conventions"
import { describe } from "vitest";

describe("conventions", async () => {
  await import("./conventions.spec");
});
describe("docs", async () => {
  await import("./docs.spec");
});
describe("middleware/rate-limit", async () => {
  await import("./middleware/rate-limit.spec");
});
describe("openapi", async () => {
  await import("./openapi.spec");
});
