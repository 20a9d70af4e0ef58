// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/signing/suite-2.test.ts -t "locales"
import { describe } from "vitest";

describe("locales", async () => {
  await import("./locales.spec");
});
describe("page-sizes", async () => {
  await import("./page-sizes.spec");
});
describe("seal", async () => {
  await import("./seal.spec");
});
describe("signing", async () => {
  await import("./signing.spec");
});
describe("sms-otp", async () => {
  await import("./sms-otp.spec");
});
describe("throttle", async () => {
  await import("./throttle.spec");
});
