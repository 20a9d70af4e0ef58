// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/partner/vault/suite-3.test.ts -t "vault-in-signed"
import { describe } from "vitest";

describe("vault-in-signed", async () => {
  await import("./vault-in-signed.spec");
});
describe("vault-in-upload", async () => {
  await import("./vault-in-upload.spec");
});
