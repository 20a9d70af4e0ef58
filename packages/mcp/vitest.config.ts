import { defineConfig } from "vitest/config";

// The MCP server's tests: Node, the server built and spoken to over stdio as an MCP client would.
export default defineConfig({
  test: {
    name: "mcp",
    root: import.meta.dirname,
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
