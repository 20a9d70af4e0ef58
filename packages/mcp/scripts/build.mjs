// dist/server.js: the server, the SDK and the OpenAPI snapshot in one ES module for Node (the npm
// dependencies stay imports). `buildServer(outfile)` is what the tests run.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const mcp = join(dirname(fileURLToPath(import.meta.url)), "..");

export async function buildServer(outfile = join(mcp, "dist", "server.js")) {
  await build({
    entryPoints: [join(mcp, "src", "server.ts")],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer();
