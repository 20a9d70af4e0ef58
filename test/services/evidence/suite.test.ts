// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/services/evidence/suite.test.ts -t "audit-export-under-node"
import { describe } from "vitest";

describe("audit-export-under-node", async () => {
  await import("./audit-export-under-node.spec");
});
describe("bundle-v3", async () => {
  await import("./bundle-v3.spec");
});
describe("seal-certificates", async () => {
  await import("./seal-certificates.spec");
});
describe("signed-bundle", async () => {
  await import("./signed-bundle.spec");
});
describe("timestamp-and-late-seal", async () => {
  await import("./timestamp-and-late-seal.spec");
});
describe("verifier-published", async () => {
  await import("./verifier-published.spec");
});
describe("verify-under-node", async () => {
  await import("./verify-under-node.spec");
});
