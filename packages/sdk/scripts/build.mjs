// dist/ for `npm pack`: one ES module (esbuild; the dependencies stay imports) and the declarations (tsc).
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { copyFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const sdk = join(dirname(fileURLToPath(import.meta.url)), "..");
rmSync(join(sdk, "dist"), { recursive: true, force: true });
await build({
  entryPoints: [join(sdk, "src", "index.ts")],
  outfile: join(sdk, "dist", "index.js"),
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  packages: "external",
  sourcemap: true,
});
execFileSync("npx", ["tsc", "-p", join(sdk, "tsconfig.json")], { cwd: sdk, stdio: "inherit" });
// tsc does not copy a hand-placed .d.ts: the generated types go over as they are
copyFileSync(join(sdk, "src", "schema.d.ts"), join(sdk, "dist", "schema.d.ts"));
