// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/partner/templates/suite.test.ts -t "add-fields"
import { describe } from "vitest";

describe("add-fields", async () => {
  await import("./add-fields.spec");
});
describe("create", async () => {
  await import("./create.spec");
});
describe("envelopes", async () => {
  await import("./envelopes.spec");
});
describe("options", async () => {
  await import("./options.spec");
});
describe("read", async () => {
  await import("./read.spec");
});
describe("tags", async () => {
  await import("./tags.spec");
});
