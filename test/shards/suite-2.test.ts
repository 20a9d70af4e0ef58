// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/shards/suite-2.test.ts -t "payments-shards"
import { describe } from "vitest";

describe("payments-shards", async () => {
  await import("./payments-shards.spec");
});
describe("signer-kba-shards", async () => {
  await import("./signer-kba-shards.spec");
});
describe("signer-shards", async () => {
  await import("./signer-shards.spec");
});
describe("templates-shards", async () => {
  await import("./templates-shards.spec");
});
describe("vault-transfers", async () => {
  await import("./vault-transfers.spec");
});
describe("webhooks-shards", async () => {
  await import("./webhooks-shards.spec");
});
