// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/sdk/suite.test.ts -t "control-signature"
import { describe } from "vitest";

describe("control-signature", async () => {
  await import("./control-signature.spec");
});
describe("lifecycle", async () => {
  await import("./lifecycle.spec");
});
describe("openapi-snapshot", async () => {
  await import("./openapi-snapshot.spec");
});
