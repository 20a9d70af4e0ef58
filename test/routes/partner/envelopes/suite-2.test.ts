// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/partner/envelopes/suite-2.test.ts -t "signing-links"
import { describe } from "vitest";

describe("signing-links", async () => {
  await import("./signing-links.spec");
});
describe("status-speculative", async () => {
  await import("./status-speculative.spec");
});
describe("void", async () => {
  await import("./void.spec");
});
