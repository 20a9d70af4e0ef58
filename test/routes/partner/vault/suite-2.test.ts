// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/partner/vault/suite-2.test.ts -t "evidence"
import { describe } from "vitest";

describe("evidence", async () => {
  await import("./evidence.spec");
});
describe("links-follow-control", async () => {
  await import("./links-follow-control.spec");
});
describe("pools", async () => {
  await import("./pools.spec");
});
describe("records", async () => {
  await import("./records.spec");
});
describe("retention", async () => {
  await import("./retention.spec");
});
describe("transfers", async () => {
  await import("./transfers.spec");
});
