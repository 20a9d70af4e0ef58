// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/jobs/suite-1.test.ts -t "auto-vault-sweep"
import { describe } from "vitest";

describe("auto-vault-sweep", async () => {
  await import("./auto-vault-sweep.spec");
});
describe("cron", async () => {
  await import("./cron.spec");
});
describe("expire-transfers", async () => {
  await import("./expire-transfers.spec");
});
describe("integrity-sweep-rounds", async () => {
  await import("./integrity-sweep-rounds.spec");
});
describe("integrity-sweep", async () => {
  await import("./integrity-sweep.spec");
});
describe("prune-webhook-attempts", async () => {
  await import("./prune-webhook-attempts.spec");
});
describe("renew-evidence-records", async () => {
  await import("./renew-evidence-records.spec");
});
describe("send-reminders", async () => {
  await import("./send-reminders.spec");
});
