// A local `wrangler dev` with fresh state, for the benchmark and the browser tests: its own process
// group (wrangler and workerd), a free loopback port, the D1 migrations applied, and random secrets.
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateSealCertificate } from "./seal-cert.mjs";
import { migrateAllLocal } from "../migrate.mjs";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const WRANGLER = join(root, "node_modules", ".bin", "wrangler");
const ENV = { ...process.env, WRANGLER_SEND_METRICS: "false" };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const bump = (map, key) => map.size < 100 || map.has(key) ? map.set(key, (map.get(key) ?? 0) + 1) : map;

/** What wrangler dev logged while watched, for a failed or suspicious run. */
export function logDigest(server) {
  if (!server) return [];
  const list = (map) => [...map].map(([k, n]) => `  ${String(n).padStart(6)} x ${k}`);
  return [
    ...(server.requests.size ? ["non-2xx requests in the wrangler dev log (count x method path -> status):", ...list(server.requests)] : []),
    ...(server.other.size ? ["other output (count x line, deduplicated):", ...list(server.other)] : []),
  ];
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer().once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Runs a command to completion; rejects with the tail of its output if it fails. */
export function run(cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, env: ENV, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      code === 0 ? resolve(out) : reject(new Error(`${[cmd, ...args].join(" ")} exited with ${code ?? signal}:\n${out.slice(-4000)}`)),
    );
  });
}

export const ANSI = /\x1b\[[0-9;]*m/g;
const HARMLESS = /Request\.cf|getaddrinfo ENOTFOUND workers\.cloudflare\.com|GetAddrInfoReqWrap/; // offline: no cf object

/**
 * `wrangler dev` without its devtools inspector, taking the flags startServer passes. The CLI always
 * attaches an inspector proxy to the Worker with the devtools Network domain enabled, and forwards every
 * devtools message (four per subrequest; locally every D1 query is one) to wrangler's Node
 * process as a separate, unawaited HTTP request that Node formats and appends to its debug log file.
 * Under load (the bench's webhook section: thousands of D1 round trips and deliveries a minute) those
 * requests outrun Node and each holds a socket: 4,000 at once in the proxy's workerd after 600
 * deliveries, against under 100 in the Worker's own workerd, whose connections to receivers are pooled.
 * At 2,000 events that ends in "Too many open files", `fetch failed`, or a local queue that stops
 * dispatching. Nothing here needs the inspector and no CLI flag turns it off, so the harness starts the
 * same local server through wrangler's programmatic API (unstable_startWorker) with `inspector: false`.
 */
const DEV_WITHOUT_INSPECTOR = `
import { unstable_startWorker } from "wrangler";
const args = process.argv.slice(1);
const dev = { server: {}, inspector: false, remote: false };
const bindings = {};
if (args.shift() !== "dev") throw new Error("expected: dev [flags]");
while (args.length > 0) {
  const flag = args.shift();
  if (flag === "--ip") dev.server.hostname = args.shift();
  else if (flag === "--port") dev.server.port = Number(args.shift());
  else if (flag === "--persist-to") dev.persist = args.shift();
  else if (flag === "--test-scheduled") dev.testScheduled = true;
  else if (flag === "--show-interactive-dev-session=false") continue;
  else if (flag === "--var") {
    const kv = args.shift();
    const i = kv.indexOf(":");
    bindings[kv.slice(0, i)] = { type: "plain_text", value: kv.slice(i + 1) };
  } else throw new Error("dev-server.mjs: flag not handled without the CLI: " + flag);
}
const worker = await unstable_startWorker({ config: "wrangler.toml", bindings, dev });
const stop = () => worker.dispose().finally(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
await worker.ready;
`;

/**
 * `wrangler dev` (without its inspector: DEV_WITHOUT_INSPECTOR) in its own process group. Until
 * `server.watching` is set only a tail of its log is kept (to explain a failed start); from then on
 * non-2xx request lines are counted by route and status, and any other output (worker console.error,
 * stack traces, reloads) is kept deduplicated.
 */
export async function startServer(persistDir, secrets) {
  const port = await freePort();
  // .dev.vars, if present, is loaded as for `npm run dev`; --var overrides the four secrets.
  const vars = Object.entries(secrets).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  // no TSA unless the caller brings one: .dev.vars may name `npm run dev`'s (scripts/dev.mjs), not running here
  if (!("SEAL_TSA_URL" in secrets)) vars.push("--var", "SEAL_TSA_URL:");
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port)];
  args.push("--persist-to", persistDir, "--show-interactive-dev-session=false", ...vars);
  // the webhook section: receivers on 127.0.0.1, and the cron handler run on demand (/__scheduled)
  args.push("--var", "WEBHOOK_URL_POLICY:allow-loopback", "--test-scheduled");
  // KBA envelopes: the deterministic sandbox provider (docs/decisions/sign-and-pay.md), whatever a developer's .dev.vars says
  args.push("--var", "KBA_PROVIDER:sandbox");
  // a development deployment: the sandbox, the outbox-only email and allow-loopback are refused in production
  args.push("--var", "SERVICE_ENV:development");
  // the hosts the service hands out in URLs (embed_url, signing links, downloads) point at this server
  const base = `http://127.0.0.1:${port}`;
  args.push("--var", `EMBED_HOST:${base}/embed`, "--var", `SIGNING_HOST:${base}/sign`, "--var", `STORAGE_HOST:${base}/storage`);
  const child = spawn(process.execPath, ["--input-type=module", "--eval", DEV_WITHOUT_INSPECTOR, ...args], {
    cwd: root,
    env: ENV,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const server = { child, base, exited: null, tail: [], watching: false, phase: "start" };
  Object.assign(server, { requests: new Map(), other: new Map(), reloads: new Map() });
  const onLine = (line) => {
    line = line.replace(ANSI, "").trimEnd();
    server.tail.push(line);
    if (server.tail.length > 200) server.tail.shift();
    if (!server.watching || line === "" || HARMLESS.test(line)) return;
    if (line.includes("Reloading local server")) bump(server.reloads, server.phase);
    const req = /\[wrangler:info\] (\w+) (\S+) (\d{3})/.exec(line);
    if (req) {
      if (!req[3].startsWith("2")) bump(server.requests, `${req[1]} ${req[2]} -> ${req[3]}`);
      return;
    }
    const normalized = line.replace(/"request_id":"[^"]*"/, '"request_id":"…"').replace(/\(\d+ms\)/, "(…ms)").slice(0, 400);
    bump(server.other, `[during ${server.phase}] ${normalized}`);
  };
  let partial = "";
  const onData = (d) => {
    const lines = (partial + d).split("\n");
    partial = lines.pop();
    lines.forEach(onLine);
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  // BENCH_DEV_LOG=<file>: wrangler dev's whole output kept there too (console.log timings while investigating a figure)
  if (process.env.BENCH_DEV_LOG) {
    const log = createWriteStream(process.env.BENCH_DEV_LOG, { flags: "a" });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
  }
  child.once("exit", (code, signal) => (server.exited = code ?? signal));
  child.once("error", (err) => (server.exited = err.message));

  const deadline = Date.now() + 90_000;
  for (;;) {
    if (server.exited !== null) throw new Error(`wrangler dev exited (${server.exited}) before it answered:\n${server.tail.join("\n")}`);
    if (Date.now() > deadline) throw new Error(`wrangler dev did not answer GET /health within 90 s:\n${server.tail.join("\n")}`);
    try {
      const res = await fetch(`${server.base}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return server;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
}

export async function stopServer(server) {
  if (!server) return;
  const kill = (sig) => {
    try {
      process.kill(-server.child.pid, sig); // the whole group: wrangler and workerd
    } catch {
      // already gone
    }
  };
  if (server.exited === null) kill("SIGTERM");
  for (let i = 0; i < 50 && server.exited === null; i++) await sleep(100);
  kill("SIGKILL"); // whatever is left of the group
}

/**
 * How long one request to the local server may go unanswered (BENCH_REQUEST_TIMEOUT_S, default 120 s).
 * Without it a request the server never answers waits for undici's 300 s header timeout and then fails
 * as a bare "fetch failed" that names neither the request nor the wait.
 */
export const REQUEST_TIMEOUT_MS = 1000 * (Number(process.env.BENCH_REQUEST_TIMEOUT_S) > 0 ? Number(process.env.BENCH_REQUEST_TIMEOUT_S) : 120);

/** One request with its answer (head and body) read within `timeoutMs`, or an error naming the method and URL: status, headers, bytes and text. */
export async function fetchWithDeadline(url, init = {}, timeoutMs = REQUEST_TIMEOUT_MS) {
  const method = init.method ?? "GET";
  const started = Date.now();
  const named = (err) => {
    const waited = `${((Date.now() - started) / 1000).toFixed(1)} s`;
    if (err?.name === "TimeoutError") return new Error(`${method} ${url} got no answer within ${timeoutMs / 1000} s (request hung)`);
    return new Error(`${method} ${url} failed after ${waited}: ${err?.message ?? err}${err?.cause ? ` (${err.cause.code ?? err.cause.message ?? err.cause})` : ""}`);
  };
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    // the body is read under the same deadline, so a server that sends headers and then stalls is named too
    const bytes = Buffer.from(await res.arrayBuffer());
    return { status: res.status, ok: res.ok, headers: res.headers, bytes, text: bytes.toString("utf8") };
  } catch (err) {
    throw named(err);
  }
}

export async function api(base, method, path, { token, apiKey, body } = {}) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (apiKey) headers["x-api-key"] = apiKey;
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetchWithDeadline(`${base}/api/v2${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return JSON.parse(res.text).data;
}

/**
 * One request's wall time in ms, for the sections that time requests one at a time (control, shards):
 * `path` under /api/v2 unless a whole URL; a non-2xx answer is pushed to `failures`.
 */
export async function timedRequest(base, method, path, apiKey, body, failures) {
  const started = performance.now();
  const res = await fetchWithDeadline(path.startsWith("http") ? path : `${base}/api/v2${path}`, {
    method,
    headers: { ...(apiKey ? { "x-api-key": apiKey } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const ms = performance.now() - started;
  if (!res.ok) failures.push(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 200)}`);
  return { ms, data: res.ok ? JSON.parse(res.text).data : null };
}

/** Random values for the secrets wrangler dev would otherwise read from .dev.vars. */
export const randomSecrets = () =>
  Object.fromEntries(["OPERATOR_TOKEN", "SESSION_JWT_SECRET", "EMBED_TOKEN_SECRET", "STORAGE_URL_SECRET"].map((k) => [k, randomBytes(32).toString("hex")]));

/** Builds the static assets, applies the migrations to `persistDir` and starts wrangler dev on it. */
export async function startFreshServer(persistDir, secrets = randomSecrets()) {
  await run(process.execPath, [join(root, "scripts", "build-assets.mjs")]);
  // every database wrangler.toml binds, the global DB and each shard, in one process (scripts/migrate.mjs)
  await migrateAllLocal({ persistTo: persistDir });
  // A fresh self-signed seal (completing a signing needs one), unless the caller brings its own.
  if (!secrets.SEAL_PRIVATE_KEY) {
    const seal = await generateSealCertificate();
    secrets = { ...secrets, SEAL_PRIVATE_KEY: seal.privateKeyPem.trim().replace(/\n/g, "\\n"), SEAL_CERTIFICATE: seal.certificatePem.trim().replace(/\n/g, "\\n") };
  }
  const server = await startServer(persistDir, secrets);
  return Object.assign(server, { secrets });
}
