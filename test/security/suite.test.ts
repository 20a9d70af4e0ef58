// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/security/suite.test.ts -t "bodiless-post"
import { describe } from "vitest";

describe("bodiless-post", async () => {
  await import("./bodiless-post.spec");
});
describe("foreign-ids", async () => {
  await import("./foreign-ids.spec");
});
describe("hostile-bodies", async () => {
  await import("./hostile-bodies.spec");
});
describe("scopes", async () => {
  await import("./scopes.spec");
});
describe("surface", async () => {
  await import("./surface.spec");
});
describe("tenancy", async () => {
  await import("./tenancy.spec");
});
