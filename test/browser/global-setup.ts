import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
// the harness the benchmark uses: wrangler dev with fresh local state, migrations applied, random secrets
import { logDigest, randomSecrets, startFreshServer, stopServer } from "../../scripts/lib/dev-server.mjs";
import { startStripeStandIn, STRIPE_TEST_PUBLISHABLE_KEY, STRIPE_TEST_SECRET_KEY, STRIPE_TEST_WEBHOOK_SECRET } from "../global/stripe-stand-in.mjs";
import { findChromium } from "./chromium";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    operatorToken: string;
    embedSecret: string;
    chromiumPath: string;
    /** the Stripe stand-in the Worker talks to (STRIPE_API_BASE), for Sign + Pay */
    stripeBase: string;
  }
}

/** Starts the Worker once for every browser test file; stops it (and removes its state) at the end. */
export default async function setup(project: TestProject) {
  const chromium = await findChromium();
  console.log(`browser tests: Chromium from ${chromium.source}: ${chromium.path}`);
  project.provide("chromiumPath", chromium.path);
  const dir = mkdtempSync(join(tmpdir(), "esign-browser-"));
  // Sign + Pay: the Worker's Stripe client talks to the stand-in (test/global/stripe-stand-in.mjs)
  const stripe = await startStripeStandIn();
  const stripeBase = `http://127.0.0.1:${stripe.port}`;
  project.provide("stripeBase", stripeBase);
  const secrets = Object.assign(randomSecrets(), {
    STRIPE_SECRET_KEY: STRIPE_TEST_SECRET_KEY,
    STRIPE_PUBLISHABLE_KEY: STRIPE_TEST_PUBLISHABLE_KEY,
    STRIPE_WEBHOOK_SECRET: STRIPE_TEST_WEBHOOK_SECRET,
    STRIPE_API_BASE: stripeBase,
    // SMS one-time passcodes stay in the outbox, read back from GET /dev/sms (test/browser/sms-otp.test.ts)
    SMS_PROVIDER: "outbox",
    DEV_PAGES: "true",
  });
  const server = await startFreshServer(join(dir, "state"), secrets);
  server.watching = true;
  project.provide("baseUrl", server.base);
  project.provide("operatorToken", server.secrets.OPERATOR_TOKEN);
  project.provide("embedSecret", server.secrets.EMBED_TOKEN_SECRET);
  return async () => {
    const digest = logDigest(server);
    if (digest.length > 0 && process.env.BROWSER_TEST_LOG) console.error(digest.join("\n"));
    await stopServer(server);
    await stripe.close();
    rmSync(dir, { recursive: true, force: true });
  };
}
