// `npm run dev`: wrangler dev (with --test-scheduled, as before) and, beside it, OpenSSL's TSA and OCSP
// responder for PAdES B-LTA seals (scripts/lib/dev-evidence.mjs; predev's dev-setup.mjs made the PKI
// and wrote the seal into .dev.vars). Extra arguments go to wrangler dev. Stopping wrangler (Ctrl-C)
// stops the stand-ins. Without openssl, wrangler dev runs alone and seals stay B-B.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startDevEvidence } from "./lib/dev-evidence.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const evidence = await startDevEvidence(root);
const wrangler = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
const child = spawn(process.execPath, [wrangler, "dev", "--test-scheduled", ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
});
// Ctrl-C reaches wrangler through the terminal's process group; this process waits for it to exit.
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.once("exit", async (code, signal) => {
  await evidence?.close().catch(() => undefined);
  process.exit(code ?? (signal ? 1 : 0));
});
