// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/services/suite-1.test.ts -t "audit-chain"
import { describe } from "vitest";

describe("audit-chain", async () => {
  await import("./audit-chain.spec");
});
describe("embed/frame-ancestors", async () => {
  await import("./embed/frame-ancestors.spec");
});
describe("evidence-levels/levels-in-service", async () => {
  await import("./evidence-levels/levels-in-service.spec");
});
describe("evidence-records/check-evidence-record", async () => {
  await import("./evidence-records/check-evidence-record.spec");
});
describe("evidence-records/evidence-bundle", async () => {
  await import("./evidence-records/evidence-bundle.spec");
});
describe("kba/sandbox", async () => {
  await import("./kba/sandbox.spec");
});
describe("pools/batched-reads", async () => {
  await import("./pools/batched-reads.spec");
});
describe("pools/crash-injection", async () => {
  await import("./pools/crash-injection.spec");
});
describe("pools/pool-property", async () => {
  await import("./pools/pool-property.spec");
});
