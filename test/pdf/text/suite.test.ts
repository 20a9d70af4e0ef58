// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/pdf/text/suite.test.ts -t "anchor-search"
import { describe } from "vitest";

describe("anchor-search", async () => {
  await import("./anchor-search.spec");
});
describe("anchors", async () => {
  await import("./anchors.spec");
});
describe("strip-tags", async () => {
  await import("./strip-tags.spec");
});
