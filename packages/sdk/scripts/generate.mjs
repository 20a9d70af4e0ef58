// Regenerates the SDK's snapshot of the OpenAPI document (openapi.json) and its types (src/schema.d.ts).
// The document comes from the Worker itself, with no server to start: the snapshot test
// (test/sdk/openapi-snapshot.spec.ts, run by test/sdk/suite.test.ts) runs in the Workers test pool and, when the committed snapshot
// differs from the live document, prints the live one between markers; this script runs that test and
// keeps what it printed. With OPENAPI_URL (e.g. http://localhost:8787/api/v2/openapi.json of a running
// `npm run dev`) it fetches the document from there instead.
import { execFileSync, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const sdk = join(dirname(fileURLToPath(import.meta.url)), "..");
const root = join(sdk, "..", "..");
const BEGIN = "@@OPENAPI-BEGIN@@";
const END = "@@OPENAPI-END@@";

async function liveDocument() {
  if (process.env.OPENAPI_URL) {
    const res = await fetch(process.env.OPENAPI_URL);
    if (!res.ok) throw new Error(`${process.env.OPENAPI_URL} answered ${res.status}`);
    return await res.json();
  }
  const run = spawnSync("npx", ["vitest", "run", "test/sdk/suite.test.ts", "-t", "OpenAPI snapshot"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  const out = `${run.stdout}\n${run.stderr}`;
  const start = out.indexOf(BEGIN);
  if (start < 0) {
    if (run.status === 0) return null; // the snapshot is current
    throw new Error(`the snapshot test failed without printing the document:\n${out.slice(-4000)}`);
  }
  return JSON.parse(out.slice(start + BEGIN.length, out.indexOf(END, start)));
}

const doc = await liveDocument();
if (doc) {
  writeFileSync(join(sdk, "openapi.json"), `${JSON.stringify(doc, null, 2)}\n`);
  console.log("openapi.json updated");
} else console.log("openapi.json is current");
execFileSync("npx", ["openapi-typescript", join(sdk, "openapi.json"), "-o", join(sdk, "src", "schema.d.ts")], { cwd: root, stdio: "inherit" });
