import { defineConfig } from "vitest/config";

// The browser tests: Chromium (found by test/browser/chromium.ts, driven through playwright-core) against
// a real `wrangler dev` of this Worker with fresh local state (D1, R2, Durable Objects, Queues), started
// once by the global setup. They run in Node, after the Workers-runtime suite (`npm test` runs both), one file at a time.
export default defineConfig({
  test: {
    name: "browser",
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./test/browser/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 180_000,
    // a poll waits for what the page does next (focus moved, a state read back): a second, the default, was not
    // enough on a loaded machine (a keyboard move to the next field waited for the page's painting)
    expect: { poll: { timeout: 10_000 } },
  },
});
