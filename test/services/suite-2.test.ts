// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/services/suite-2.test.ts -t "read-back-rules"
import { describe } from "vitest";

describe("read-back-rules", async () => {
  await import("./read-back-rules.spec");
});
describe("retention/never-destroys-held", async () => {
  await import("./retention/never-destroys-held.spec");
});
describe("signing/completion-commit", async () => {
  await import("./signing/completion-commit.spec");
});
describe("signing/field-values", async () => {
  await import("./signing/field-values.spec");
});
describe("state-machine", async () => {
  await import("./state-machine.spec");
});
describe("templates/signing-provider", async () => {
  await import("./templates/signing-provider.spec");
});
