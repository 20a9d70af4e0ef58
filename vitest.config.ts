import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      cloudflareTest({
        main: "./src/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            OPERATOR_TOKEN: "test-operator-token",
            SESSION_JWT_SECRET: "test-session-secret-0123456789abcdef",
            EMBED_TOKEN_SECRET: "test-embed-secret-0123456789abcdef",
            STORAGE_URL_SECRET: "test-storage-secret-0123456789abcdef",
            // webhook tests deliver to a real receiver on 127.0.0.1 (test/global/webhook-receiver.mjs)
            WEBHOOK_URL_POLICY: "allow-loopback",
            // a developer's .dev.vars (written by `npm run dev`) turns the dev pages on; tests decide per test
            DEV_PAGES: "false",
            EMAIL_TRANSPORT: "outbox",
          },
        },
      }),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      exclude: ["test/browser/**"],
      setupFiles: ["./test/setup.ts"],
      globalSetup: ["./test/global/webhook-receiver.mjs", "./test/global/postmark-stand-in.mjs"],
      testTimeout: 30_000,
    },
  };
});
