// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/hardening/suite-2.test.ts -t "field-values-are-values"
import { describe } from "vitest";

describe("field-values-are-values", async () => {
  await import("./field-values-are-values.spec");
});
describe("flood-limits", async () => {
  await import("./flood-limits.spec");
});
describe("guarded-org-writes", async () => {
  await import("./guarded-org-writes.spec");
});
describe("idempotency-retries", async () => {
  await import("./idempotency-retries.spec");
});
describe("idempotency-retryable", async () => {
  await import("./idempotency-retryable.spec");
});
describe("kba-gates", async () => {
  await import("./kba-gates.spec");
});
describe("kba-shopping", async () => {
  await import("./kba-shopping.spec");
});
describe("legacy-webhook", async () => {
  await import("./legacy-webhook.spec");
});
