// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/signing/suite-1.test.ts -t "attachments"
import { describe } from "vitest";

describe("attachments", async () => {
  await import("./attachments.spec");
});
describe("choices", async () => {
  await import("./choices.spec");
});
describe("completed-copy", async () => {
  await import("./completed-copy.spec");
});
describe("consent-before-the-record", async () => {
  await import("./consent-before-the-record.spec");
});
describe("consent", async () => {
  await import("./consent.spec");
});
describe("incremental-completion", async () => {
  await import("./incremental-completion.spec");
});
describe("kba-send", async () => {
  await import("./kba-send.spec");
});
describe("kba", async () => {
  await import("./kba.spec");
});
