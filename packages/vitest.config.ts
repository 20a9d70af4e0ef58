import { defineConfig } from "vitest/config";

// The packages' own tests, in Node (`npm run test:packages`, the last step of `npm test`): the SDK's
// generated types held to its OpenAPI snapshot, and the MCP server spoken to over stdio as a client would.
export default defineConfig({
  test: {
    name: "packages",
    root: import.meta.dirname,
    include: ["*/test/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
