// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/partner/envelopes/suite-1.test.ts -t "cc"
import { describe } from "vitest";

describe("cc", async () => {
  await import("./cc.spec");
});
describe("corrections", async () => {
  await import("./corrections.spec");
});
describe("create", async () => {
  await import("./create.spec");
});
describe("document", async () => {
  await import("./document.spec");
});
describe("read-back", async () => {
  await import("./read-back.spec");
});
describe("read", async () => {
  await import("./read.spec");
});
describe("send-needs-seal", async () => {
  await import("./send-needs-seal.spec");
});
describe("send", async () => {
  await import("./send.spec");
});
