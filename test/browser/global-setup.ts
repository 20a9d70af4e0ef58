import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
// the harness the benchmark uses: wrangler dev with fresh local state, migrations applied, random secrets
import { logDigest, startFreshServer, stopServer } from "../../scripts/lib/dev-server.mjs";

export const CHROMIUM = "/usr/bin/chromium";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    operatorToken: string;
    embedSecret: string;
  }
}

/** Starts the Worker once for every browser test file; stops it (and removes its state) at the end. */
export default async function setup(project: TestProject) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does this on a fresh machine`);
  }
  const dir = mkdtempSync(join(tmpdir(), "esign-browser-"));
  const server = await startFreshServer(join(dir, "state"));
  server.watching = true;
  project.provide("baseUrl", server.base);
  project.provide("operatorToken", server.secrets.OPERATOR_TOKEN);
  project.provide("embedSecret", server.secrets.EMBED_TOKEN_SECRET);
  return async () => {
    const digest = logDigest(server);
    if (digest.length > 0 && process.env.BROWSER_TEST_LOG) console.error(digest.join("\n"));
    await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
  };
}
