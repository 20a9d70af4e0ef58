// `npm run example`: the quickstart lifecycle through the TypeScript SDK (packages/sdk/examples/lifecycle.ts),
// printing each step, against a running service: `npm run dev` in another terminal, then `npm run example`.
// BASE_URL and API_KEY (and TO_ORG_ID for the transfer) come from the environment, else from the
// .dev-demo.json `npm run dev` writes.
import { build } from "esbuild";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const demoFile = join(root, ".dev-demo.json");
const demo = existsSync(demoFile) ? JSON.parse(readFileSync(demoFile, "utf8")) : {};
const baseUrl = process.env.BASE_URL ?? demo.base_url ?? "http://localhost:8787";
const apiKey = process.env.API_KEY ?? demo.api_key;
if (!apiKey) {
  console.error("No API key: set API_KEY, or run `npm run dev` once (it writes .dev-demo.json with a demo key).");
  process.exit(1);
}

// Node runs no TypeScript here: the example is bundled with esbuild next to the SDK (so its imports resolve as the SDK's do).
const outfile = join(root, "packages", "sdk", "dist", "examples", "lifecycle.mjs");
await build({ entryPoints: [join(root, "packages", "sdk", "examples", "lifecycle.ts")], outfile, bundle: true, format: "esm", platform: "node", target: "node20", packages: "external", logLevel: "warning" });
const { runLifecycle } = await import(pathToFileURL(outfile).href);

console.log(`Lifecycle through the SDK against ${baseUrl}`);
try {
  await runLifecycle({ baseUrl, apiKey, toOrgId: process.env.TO_ORG_ID ?? demo.second_org_id ?? null });
} catch (e) {
  console.error(`failed: ${e?.message ?? e}`);
  if (e?.details) console.error(JSON.stringify(e.details, null, 2));
  if (e?.requestId) console.error(`request id: ${e.requestId}`);
  if (e?.cause) console.error(e.cause);
  if (String(e?.cause?.code ?? e?.message).includes("ECONNREFUSED")) console.error(`Is the service running? Start it with \`npm run dev\` (it serves ${baseUrl}).`);
  process.exit(1);
}
