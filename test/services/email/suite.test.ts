// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/services/email/suite.test.ts -t "catalogs"
import { describe } from "vitest";

describe("catalogs", async () => {
  await import("./catalogs.spec");
});
describe("deliver", async () => {
  await import("./deliver.spec");
});
describe("dev-page", async () => {
  await import("./dev-page.spec");
});
describe("invitations", async () => {
  await import("./invitations.spec");
});
describe("postmark", async () => {
  await import("./postmark.spec");
});
