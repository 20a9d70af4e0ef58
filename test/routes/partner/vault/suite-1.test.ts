// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/partner/vault/suite-1.test.ts -t "attestation"
import { describe } from "vitest";

describe("attestation", async () => {
  await import("./attestation.spec");
});
describe("certificate-pdf", async () => {
  await import("./certificate-pdf.spec");
});
describe("certificate", async () => {
  await import("./certificate.spec");
});
describe("close", async () => {
  await import("./close.spec");
});
describe("control-keys", async () => {
  await import("./control-keys.spec");
});
describe("control-signature", async () => {
  await import("./control-signature.spec");
});
describe("downloads", async () => {
  await import("./downloads.spec");
});
