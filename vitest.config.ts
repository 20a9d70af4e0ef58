import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { generateSealCertificate } from "./scripts/lib/seal-cert.mjs";
import { createServer } from "node:net";
import { STRIPE_TEST_PUBLISHABLE_KEY, STRIPE_TEST_SECRET_KEY, STRIPE_TEST_WEBHOOK_SECRET } from "./test/global/stripe-stand-in.mjs";

/** A free loopback port, chosen once per vitest process (the config may be evaluated more than once). */
async function stripeStandInPort(): Promise<number> {
  if (!process.env.STRIPE_STAND_IN_PORT) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer().once("error", reject);
      srv.listen(0, "127.0.0.1", () => {
        const { port } = srv.address() as { port: number };
        srv.close(() => resolve(port));
      });
    });
    process.env.STRIPE_STAND_IN_PORT = String(port);
  }
  return Number(process.env.STRIPE_STAND_IN_PORT);
}

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  // The Stripe stand-in (test/global/stripe-stand-in.mjs) listens where the Worker's STRIPE_API_BASE points.
  const stripePort = await stripeStandInPort();
  // A fresh self-signed seal for every run (never a committed key): completing a signing seals the PDF.
  const seal = await generateSealCertificate({ commonName: "esign-vault test seal" });
  return {
    plugins: [
      cloudflareTest({
        main: "./src/index.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            // a development deployment; the tests of production's refusals override it per request
            SERVICE_ENV: "development",
            OPERATOR_TOKEN: "test-operator-token",
            SESSION_JWT_SECRET: "test-session-secret-0123456789abcdef",
            EMBED_TOKEN_SECRET: "test-embed-secret-0123456789abcdef",
            STORAGE_URL_SECRET: "test-storage-secret-0123456789abcdef",
            // webhook tests deliver to a real receiver on 127.0.0.1 (test/global/webhook-receiver.mjs)
            WEBHOOK_URL_POLICY: "allow-loopback",
            // a developer's .dev.vars (written by `npm run dev`) turns the dev pages on; tests decide per test
            DEV_PAGES: "false",
            EMAIL_TRANSPORT: "outbox",
            SEAL_PRIVATE_KEY: seal.privateKeyPem,
            SEAL_CERTIFICATE: seal.certificatePem,
            // the deterministic KBA sandbox (DESIGN.md 7); the tests of a deployment without KBA override it per request
            KBA_PROVIDER: "sandbox",
            // crash injection of the bulk-send workflow (durable-objects/bulk-batch.ts); tests only
            BULK_TEST_HOOKS: "true",
            // Sign + Pay against the Stripe stand-in; the tests of payments switched off override these per request
            STRIPE_SECRET_KEY: STRIPE_TEST_SECRET_KEY,
            STRIPE_PUBLISHABLE_KEY: STRIPE_TEST_PUBLISHABLE_KEY,
            STRIPE_WEBHOOK_SECRET: STRIPE_TEST_WEBHOOK_SECRET,
            STRIPE_API_BASE: `http://127.0.0.1:${stripePort}`,
          },
        },
      }),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      exclude: ["test/browser/**"],
      setupFiles: ["./test/setup.ts"],
      globalSetup: ["./test/global/webhook-receiver.mjs", "./test/global/postmark-stand-in.mjs", "./test/global/stripe-stand-in.mjs"],
      testTimeout: 30_000,
      // CommonJS packages that require() an ES-module dependency (pdf-lib): pre-bundled for the Workers runtime;
      // stripe too, whose hundreds of ES modules name source maps it does not ship (one warning per file otherwise)
      deps: { optimizer: { ssr: { enabled: true, include: ["pdf-lib", "@signpdf/placeholder-pdf-lib", "@signpdf/signpdf", "@signpdf/utils", "stripe"] } } },
    },
  };
});
