// `npm run dev`: wrangler dev (with --test-scheduled, as before) and, beside it, OpenSSL's TSA and OCSP
// responder for PAdES B-LTA seals (scripts/lib/dev-evidence.mjs; predev's dev-setup.mjs made the PKI
// and wrote the seal into .dev.vars). Extra arguments go to wrangler dev. Stopping wrangler (Ctrl-C)
// stops the stand-ins. Without openssl, wrangler dev runs alone and seals stay B-B.
// It polls /health and, once it answers, prints how long the start took and the demo credentials
// (scripts/lib/dev-banner.mjs, from the .dev-demo.json dev-setup.mjs wrote).
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startDevEvidence } from "./lib/dev-evidence.mjs";
import { banner, readDemo } from "./lib/dev-banner.mjs";

const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const evidence = await startDevEvidence(root);
const wrangler = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
console.log("dev: starting wrangler dev (bundling the Worker, starting workerd)");
const child = spawn(process.execPath, [wrangler, "dev", "--test-scheduled", ...args], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
});
// Ctrl-C reaches wrangler through the terminal's process group; this process waits for it to exit.
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
let exited = false;
child.once("exit", async (code, signal) => {
  exited = true;
  await evidence?.close().catch(() => undefined);
  process.exit(code ?? (signal ? 1 : 0));
});

/** The value of a wrangler dev flag (`--port 8790` or `--port=8790`), if given. */
function flag(name) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
  }
  return undefined;
}

// wrangler dev listens on localhost:8787 unless told otherwise; localhost may be either address family.
const port = Number(flag("--port")) || 8787;
const ip = flag("--ip");
const hosts = ip && ip !== "localhost" && ip !== "0.0.0.0" && ip !== "::" ? [ip.includes(":") ? `[${ip}]` : ip] : ["127.0.0.1", "[::1]"];
const HEALTH_WAIT_MS = 180_000;
const until = Date.now() + HEALTH_WAIT_MS;
let answered = null;
while (!exited && !answered && Date.now() < until) {
  for (const host of hosts) {
    const res = await fetch(`http://${host}:${port}/health`, { signal: AbortSignal.timeout(5000) }).catch(() => null);
    if (res?.ok) {
      answered = host;
      break;
    }
  }
  if (!answered) await new Promise((r) => setTimeout(r, 200));
}
if (answered) {
  const base = `http://localhost:${port}`;
  console.log(`dev: ${base}/health answered ${seconds()} s after wrangler dev was started`);
  const demo = readDemo(root);
  if (demo) console.log(banner(demo, base));
} else if (!exited) {
  console.log(`dev: /health did not answer on port ${port} within ${HEALTH_WAIT_MS / 1000} s; wrangler dev keeps running (see its output above)`);
}
