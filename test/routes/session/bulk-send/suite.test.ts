// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/session/bulk-send/suite.test.ts -t "crash-injection"
import { describe } from "vitest";

describe("crash-injection", async () => {
  await import("./crash-injection.spec");
});
describe("item-auth", async () => {
  await import("./item-auth.spec");
});
describe("kba-and-scale", async () => {
  await import("./kba-and-scale.spec");
});
describe("resume", async () => {
  await import("./resume.spec");
});
describe("routes", async () => {
  await import("./routes.spec");
});
describe("workflow", async () => {
  await import("./workflow.spec");
});
