// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/services/vault/suite.test.ts -t "auto-vault"
import { describe } from "vitest";

describe("auto-vault", async () => {
  await import("./auto-vault.spec");
});
describe("certificate", async () => {
  await import("./certificate.spec");
});
describe("consumer-consent", async () => {
  await import("./consumer-consent.spec");
});
describe("hashing", async () => {
  await import("./hashing.spec");
});
describe("live-compliance", async () => {
  await import("./live-compliance.spec");
});
