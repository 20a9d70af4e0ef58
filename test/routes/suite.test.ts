// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/suite.test.ts -t "meta/seal-certificates"
import { describe } from "vitest";

describe("meta/seal-certificates", async () => {
  await import("./meta/seal-certificates.spec");
});
describe("stripe/webhook", async () => {
  await import("./stripe/webhook.spec");
});
