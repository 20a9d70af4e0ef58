// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/pdf/seal/suite.test.ts -t "levels"
import { describe } from "vitest";

describe("levels", async () => {
  await import("./levels.spec");
});
describe("seal-pdf", async () => {
  await import("./seal-pdf.spec");
});
describe("timestamp", async () => {
  await import("./timestamp.spec");
});
