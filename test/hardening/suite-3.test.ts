// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/hardening/suite-3.test.ts -t "org-chain-truncation"
import { describe } from "vitest";

describe("org-chain-truncation", async () => {
  await import("./org-chain-truncation.spec");
});
describe("org-writes-concurrency", async () => {
  await import("./org-writes-concurrency.spec");
});
describe("pdf-bomb-bypasses", async () => {
  await import("./pdf-bomb-bypasses.spec");
});
describe("pdf-bomb-fuzz", async () => {
  await import("./pdf-bomb-fuzz.spec");
});
describe("service-env", async () => {
  await import("./service-env.spec");
});
describe("signature-png-bomb", async () => {
  await import("./signature-png-bomb.spec");
});
describe("signer-credentials", async () => {
  await import("./signer-credentials.spec");
});
describe("statement-budget", async () => {
  await import("./statement-budget.spec");
});
