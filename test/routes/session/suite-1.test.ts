// The small test files of this folder, run in one Workers runtime: starting a runtime and loading the
// Worker costs each file about five seconds, more than most of these files' tests
// (docs/decisions/test-suite-time.md). Each spec keeps its own describe, hooks and tenants.
// One spec alone: npx vitest run test/routes/session/suite-1.test.ts -t "builder-session"
import { describe } from "vitest";

describe("builder-session", async () => {
  await import("./builder-session.spec");
});
describe("document-packages", async () => {
  await import("./document-packages.spec");
});
describe("envelopes/send", async () => {
  await import("./envelopes/send.spec");
});
describe("esign-disclosure", async () => {
  await import("./esign-disclosure.spec");
});
describe("org/audit-export", async () => {
  await import("./org/audit-export.spec");
});
describe("org/embed-settings", async () => {
  await import("./org/embed-settings.spec");
});
describe("session-auth", async () => {
  await import("./session-auth.spec");
});
describe("templates", async () => {
  await import("./templates.spec");
});
