// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/pdf/suite.test.ts -t "incremental/completion"
import { describe } from "vitest";

describe("incremental/completion", async () => {
  await import("./incremental/completion.spec");
});
describe("stamp/certificate-page", async () => {
  await import("./stamp/certificate-page.spec");
});
describe("stamp/stamp-document", async () => {
  await import("./stamp/stamp-document.spec");
});
describe("vault/mark-copy", async () => {
  await import("./vault/mark-copy.spec");
});
describe("vault/mark-paper", async () => {
  await import("./vault/mark-paper.spec");
});
