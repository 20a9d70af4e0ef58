// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/hardening/suite-1.test.ts -t "ac-copies"
import { describe } from "vitest";

describe("ac-copies", async () => {
  await import("./ac-copies.spec");
});
describe("api-key-limiter-races", async () => {
  await import("./api-key-limiter-races.spec");
});
describe("audit-chain-truncation", async () => {
  await import("./audit-chain-truncation.spec");
});
describe("bulk-flood-hang", async () => {
  await import("./bulk-flood-hang.spec");
});
describe("decompression-bomb", async () => {
  await import("./decompression-bomb.spec");
});
describe("email-links-at-rest", async () => {
  await import("./email-links-at-rest.spec");
});
describe("embed-signing-session", async () => {
  await import("./embed-signing-session.spec");
});
describe("faults", async () => {
  await import("./faults.spec");
});
