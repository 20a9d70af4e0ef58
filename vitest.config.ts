import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { generateSealCertificate } from "./scripts/lib/seal-cert.mjs";
import { makeTestPki, readTestPki } from "./scripts/lib/test-pki.mjs";
import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism } from "node:os";
import { STRIPE_TEST_PUBLISHABLE_KEY, STRIPE_TEST_SECRET_KEY, STRIPE_TEST_WEBHOOK_SECRET } from "./test/global/stripe-stand-in.mjs";

/** A free loopback port, chosen once per vitest process (the config may be evaluated more than once). */
async function stripeStandInPort(): Promise<number> {
  return standInPort("STRIPE_STAND_IN_PORT");
}

async function standInPort(variable: string): Promise<number> {
  if (!process.env[variable]) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer().once("error", reject);
      srv.listen(0, "127.0.0.1", () => {
        const { port } = srv.address() as { port: number };
        srv.close(() => resolve(port));
      });
    });
    process.env[variable] = String(port);
  }
  return Number(process.env[variable]);
}

/**
 * The throwaway OpenSSL PKI of the evidence-level tests (scripts/lib/test-pki.mjs), made once per vitest
 * process: its seals name the OCSP stand-in's port, so the ports are chosen first. Removed at exit.
 */
async function testPki() {
  const tsaPort = await standInPort("TSA_STAND_IN_PORT");
  const ocspPort = await standInPort("OCSP_STAND_IN_PORT");
  if (!process.env.TEST_PKI_DIR) {
    const pki = makeTestPki({ ocspBase: `http://127.0.0.1:${ocspPort}` });
    process.env.TEST_PKI_DIR = pki.dir;
    process.once("exit", () => rmSync(pki.dir, { recursive: true, force: true }));
  }
  return { tsaPort, ocspPort, pki: readTestPki(process.env.TEST_PKI_DIR) };
}

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  // The Stripe stand-in (test/global/stripe-stand-in.mjs) listens where the Worker's STRIPE_API_BASE points.
  const stripePort = await stripeStandInPort();
  // A fresh self-signed seal for every run (never a committed key): completing a signing seals the PDF.
  const seal = await generateSealCertificate({ commonName: "esign-vault test seal" });
  // PAdES B-T / B-LT / B-LTA against OpenSSL: the TSA and OCSP stand-ins (test/global/tsa-stand-in.mjs,
  // ocsp-stand-in.mjs) and seals issued by the throwaway CA. Only the level tests use them (per test):
  // the default SEAL_* stay self-signed with no SEAL_TSA_URL, so every other test seals at B-B.
  const { tsaPort, ocspPort, pki } = await testPki();
  return {
    // Vite's cache of pre-bundled dependencies (below) for this suite and this checkout alone: two vitest
    // processes sharing a cache directory (another suite's list, or a second checkout, a git worktree, whose
    // node_modules is a link to this one's) re-bundle over each other, and a runtime mid-file then fails
    // with "There is a new version of the pre-bundle". So it lives in the checkout, not in node_modules.
    cacheDir: ".vite-cache/workers-suite",
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
            // what `npm run dev` writes to .dev.vars (the dev TSA, B-LTA locally) must not reach the tests either:
            // without SEAL_TSA_URL every test seals at B-B; the level tests set the TSA per request
            SEAL_TSA_URL: "",
            SEAL_RETIRED_CERTIFICATES: "",
            EMAIL_FROM: "",
            POSTMARK_SERVER_TOKEN: "",
            POSTMARK_MESSAGE_STREAM: "",
            POSTMARK_API_BASE: "",
            EMAIL_TRANSPORT: "outbox",
            // one-time passcodes stay in the SMS outbox; the Twilio tests point it at test/global/twilio-stand-in.mjs per request
            SMS_PROVIDER: "outbox",
            TWILIO_ACCOUNT_SID: "",
            TWILIO_AUTH_TOKEN: "",
            TWILIO_FROM_NUMBER: "",
            TWILIO_API_BASE: "",
            SEAL_PRIVATE_KEY: seal.privateKeyPem,
            SEAL_CERTIFICATE: seal.certificatePem,
            // the deterministic KBA sandbox (docs/decisions/sign-and-pay.md); the tests of a deployment without KBA override it per request
            KBA_PROVIDER: "sandbox",
            // crash injection of the bulk-send workflow (durable-objects/bulk-batch.ts); tests only
            BULK_TEST_HOOKS: "true",
            // Sign + Pay against the Stripe stand-in; the tests of payments switched off override these per request
            STRIPE_SECRET_KEY: STRIPE_TEST_SECRET_KEY,
            STRIPE_PUBLISHABLE_KEY: STRIPE_TEST_PUBLISHABLE_KEY,
            STRIPE_WEBHOOK_SECRET: STRIPE_TEST_WEBHOOK_SECRET,
            STRIPE_API_BASE: `http://127.0.0.1:${stripePort}`,
            // evidence levels: `${TEST_TSA_URL}/<name>` is a TSA path a test may take down (POST <origin>/_admin/down?path=…)
            TEST_TSA_URL: `http://127.0.0.1:${tsaPort}/tsa`,
            TEST_OCSP_URL: `http://127.0.0.1:${ocspPort}`,
            TEST_PKI_CA_CERTIFICATE: pki.caPem,
            // seal named OCSP <TEST_OCSP_URL>/ocsp and CRL <TEST_OCSP_URL>/ca.crl (chain: seal, root)
            TEST_LT_SEAL_PRIVATE_KEY: pki.seal.privateKeyPem,
            TEST_LT_SEAL_CERTIFICATE: pki.seal.certificatePem,
            // seal naming only OCSP <TEST_OCSP_URL>/ocsp-outage: the path OCSP outage tests take down
            TEST_LT_OUTAGE_SEAL_PRIVATE_KEY: pki.sealOutage.privateKeyPem,
            TEST_LT_OUTAGE_SEAL_CERTIFICATE: pki.sealOutage.certificatePem,
            TEST_LT_SERVICE_OUTAGE_SEAL_PRIVATE_KEY: pki.sealOutageService.privateKeyPem,
            TEST_LT_SERVICE_OUTAGE_SEAL_CERTIFICATE: pki.sealOutageService.certificatePem,
            // seal naming only a CRL distribution point
            TEST_LT_CRL_SEAL_PRIVATE_KEY: pki.sealCrl.privateKeyPem,
            TEST_LT_CRL_SEAL_CERTIFICATE: pki.sealCrl.certificatePem,
          },
        },
      }),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      exclude: ["test/browser/**"],
      // A runtime per file (vitest's default isolation). One shared runtime (`isolate: false`) was tried and
      // measured: every file ran 2 to 60 times slower the longer the runtime lived (docs/decisions/test-suite-time.md).
      setupFiles: ["./test/setup.ts"],
      // Two files at a time even on two cores (vitest's default there is one): a file's start-up waits on
      // round trips between vitest and workerd as much as it computes, and two workers finished the same
      // files in four fifths of the time (docs/decisions/test-suite-time.md)
      maxWorkers: Math.max(2, availableParallelism() - 1),
      globalSetup: ["./test/global/webhook-receiver.mjs", "./test/global/postmark-stand-in.mjs", "./test/global/twilio-stand-in.mjs", "./test/global/stripe-stand-in.mjs", "./test/global/tsa-stand-in.mjs", "./test/global/ocsp-stand-in.mjs", "./test/global/node-verifier.mjs"],
      // A safety net against a hang, never a budget: on the shared 2-core machine at a load of 15-20 a test
      // that takes 3 s on a quiet one takes 30 s and more (docs/decisions/test-suite-time.md)
      testTimeout: 120_000,
      hookTimeout: 120_000,
      // CommonJS packages that require() an ES-module dependency (pdf-lib): pre-bundled for the Workers runtime;
      // stripe too, whose hundreds of ES modules name source maps it does not ship (one warning per file otherwise)
      // The Worker's other dependencies too: each file's runtime loads them again, and one pre-bundled module
      // per package (zod alone is 95 files, drizzle 107, jose 46) costs a second less per file than hundreds
      // of round trips through the module runner (docs/decisions/test-suite-time.md)
      deps: {
        optimizer: {
          ssr: {
            enabled: true,
            include: [
              "pdf-lib", "@signpdf/placeholder-pdf-lib", "@signpdf/signpdf", "@signpdf/utils", "stripe",
              "@hono/zod-openapi", "hono", "hono/factory", "hono/utils/http-status", "hono/http-exception", "hono/body-limit",
              "hono/dev", "zod", "drizzle-orm", "drizzle-orm/sqlite-core", "drizzle-orm/d1", "jose", "pkijs", "asn1js", "fflate", "canonicalize", "unpdf",
            ],
          },
        },
      },
    },
  };
});
