// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/services/control/suite.test.ts -t "control-keys-race"
import { describe } from "vitest";

describe("control-keys-race", async () => {
  await import("./control-keys-race.spec");
});
describe("control-property", async () => {
  await import("./control-property.spec");
});
describe("signature", async () => {
  await import("./signature.spec");
});
