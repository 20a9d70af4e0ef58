// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/hardening/suite-4.test.ts -t "template-document-race"
import { describe } from "vitest";

describe("template-document-race", async () => {
  await import("./template-document-race.spec");
});
describe("upload-read-order", async () => {
  await import("./upload-read-order.spec");
});
describe("view-only-sessions", async () => {
  await import("./view-only-sessions.spec");
});
describe("webhook-fairness", async () => {
  await import("./webhook-fairness.spec");
});
describe("webhook-url-empty-labels", async () => {
  await import("./webhook-url-empty-labels.spec");
});
