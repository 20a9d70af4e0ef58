// `npm run fuzz:pdf`: bundles scripts/fuzz-pdf-bombs.ts for Node with esbuild (the Worker's own budget
// module, unchanged) and runs it. FUZZ_RUNS (default 10,000) and FUZZ_SEED pass through.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "fuzz-pdf-"));
const outfile = join(dir, "fuzz-pdf-bombs.mjs");
try {
  await build({ entryPoints: [join(here, "fuzz-pdf-bombs.ts")], bundle: true, platform: "node", format: "esm", outfile, logLevel: "warning" });
  const { status } = spawnSync(process.execPath, [outfile], { stdio: "inherit" });
  process.exitCode = status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
