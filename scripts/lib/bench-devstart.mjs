// `npm run dev` start times (issue 37, docs/decisions/dev-start.md): the bench's `devstart` section.
// A scratch copy of the working tree (what `git ls-files` lists, tracked and untracked-but-not-ignored,
// so no .wrangler, .dev.vars, .dev-demo.json or public/static: a fresh clone, uncommitted edits
// included; node_modules symlinked), then per run: `npm run dev` from nothing (fresh) and again on the
// state it left (restart), each timed from the spawn of `npm run dev` until GET /health answers 200,
// then stopped (its whole process group). The lines dev-setup.mjs and dev.mjs print give the split.
// Env: BENCH_DEVSTART_RUNS (default 2: two fresh starts, each followed by a restart).
// Never touches this checkout's own local state; the copy is deleted afterwards.
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { freePort, root } from "./dev-server.mjs";
import { fmt, log, positiveInt, sleep } from "./bench-util.mjs";

const RUNS = positiveInt("BENCH_DEVSTART_RUNS", 2);
const FRESH_TARGET_S = 60;
const RESTART_TARGET_S = 20;
const HEALTH_TIMEOUT_MS = 300_000;
const ANSI = /\x1b\[[0-9;]*m/g;

/** The working tree as a fresh clone would have it (plus uncommitted edits), node_modules linked. */
function scratchCopy() {
  const dir = mkdtempSync(join(tmpdir(), "esign-devstart-"));
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    .split("\0")
    .filter((f) => f && f !== "node_modules" && !f.startsWith("node_modules/"));
  for (const file of files) {
    const to = join(dir, file);
    mkdirSync(dirname(to), { recursive: true });
    try {
      cpSync(join(root, file), to);
    } catch (err) {
      if (err.code !== "ENOENT") throw err; // deleted in the working tree, not yet committed
    }
  }
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  return dir;
}

const TICKS = 100; // USER_HZ: /proc's clock ticks a second on Linux

/**
 * CPU seconds (user + system) of a process group's members, sampled from /proc: the latest figure of
 * every member seen, summed. A member that lives less than a sample interval is missed, so it is a floor.
 * It tells the work apart from the machine's load: on an idle 2-core machine the wall time is about
 * max(CPU / 2, the longest chain of steps).
 */
function groupCpuSampler(pgid) {
  const seen = new Map();
  const sample = () => {
    let pids = [];
    try {
      pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
    } catch {
      return;
    }
    for (const pid of pids) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(f[2]) !== pgid) continue; // field 5: process group
        seen.set(pid, (Number(f[11]) + Number(f[12])) / TICKS); // fields 14, 15: utime, stime
      } catch {
        // gone meanwhile
      }
    }
  };
  const timer = setInterval(sample, 100);
  return {
    stop() {
      sample();
      clearInterval(timer);
      return [...seen.values()].reduce((a, b) => a + b, 0);
    },
  };
}

/** One `npm run dev` in `dir`: seconds until /health answers, its step lines; stopped afterwards. */
export async function timedStart(dir) {
  const [port, inspector, tsa, ocsp] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const load = loadavg()[0];
  const started = performance.now();
  const child = spawn("npm", ["run", "dev", "--", "--port", String(port), "--ip", "127.0.0.1", "--inspector-port", String(inspector), "--show-interactive-dev-session=false"], {
    cwd: dir,
    detached: true, // its own process group: npm, dev.mjs, wrangler, workerd, the OpenSSL stand-ins
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", DEV_TSA_PORT: String(tsa), DEV_OCSP_PORT: String(ocsp) },
  });
  const cpu = process.platform === "linux" ? groupCpuSampler(child.pid) : null;
  let cpuSeconds = null;
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  let exited = null;
  child.once("exit", (code, signal) => (exited = code ?? signal));
  let seconds = null;
  try {
    while (exited === null && performance.now() - started < HEALTH_TIMEOUT_MS) {
      const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5000) }).catch(() => null);
      if (res?.ok) {
        seconds = (performance.now() - started) / 1000;
        cpuSeconds = cpu?.stop() ?? null;
        break;
      }
      await sleep(100);
    }
    if (seconds === null) throw new Error(`npm run dev ${exited === null ? `did not answer /health within ${HEALTH_TIMEOUT_MS / 1000} s` : `exited (${exited})`}:\n${output.replace(ANSI, "").slice(-3000)}`);
    // the banner follows /health in dev.mjs: give it a moment so the step lines are complete
    for (let i = 0; i < 50 && !/answered .* after wrangler dev/.test(output); i++) await sleep(100);
  } finally {
    if (cpuSeconds === null) cpu?.stop();
    await stopGroup(child, () => exited !== null);
  }
  const lines = output.replace(ANSI, "").split("\n");
  const setup = Number(/dev-setup: ready in ([\d.]+) s/.exec(output)?.[1]);
  const wrangler = Number(/answered ([\d.]+) s after wrangler dev/.exec(output)?.[1]);
  const steps = lines.filter((l) => /^dev-setup: [^:]+: .*\(([\d.]+) s\)$/.test(l)).map((l) => {
    const m = /^dev-setup: ([^:]+): .*\(([\d.]+) s\)$/.exec(l);
    return `${m[1]} ${m[2]}`;
  });
  const banner = lines.some((l) => l.includes("API key      lk_"));
  return { seconds, setup, wrangler, steps, banner, load, cpuSeconds };
}

async function stopGroup(child, done) {
  for (const [signal, waitMs] of [["SIGINT", 8000], ["SIGTERM", 5000], ["SIGKILL", 2000]]) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      return; // the group is gone
    }
    for (let waited = 0; waited < waitMs && !done(); waited += 100) await sleep(100);
    if (done()) {
      // the leader is gone; make sure nothing of the group stayed behind
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // nothing left
      }
      return;
    }
  }
}

export async function devStartSection() {
  const dir = scratchCopy();
  log(`devstart: scratch copy of the working tree in ${dir}`);
  const rows = [];
  const failures = [];
  try {
    for (let run = 1; run <= RUNS; run++) {
      for (const state of [".wrangler", ".dev.vars", ".dev-demo.json", "public/static/app", "public/static/vendor"]) rmSync(join(dir, state), { recursive: true, force: true });
      for (const kind of ["fresh", "restart"]) {
        log(`devstart: run ${run}/${RUNS}, ${kind} npm run dev`);
        const r = await timedStart(dir);
        const target = kind === "fresh" ? FRESH_TARGET_S : RESTART_TARGET_S;
        if (!r.banner) failures.push(`devstart: run ${run} ${kind}: no demo credentials printed`);
        rows.push([`${kind} (run ${run})`, `${fmt(r.seconds)} s`, `${fmt(r.setup)} s`, `${fmt(r.wrangler)} s`, `${target} s ${r.seconds < target ? "met" : "MISSED"}`, `${fmt(r.cpuSeconds)} s`, fmt(r.load, 1), r.steps.join(", ")]);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    title: "npm run dev: fresh clone and restart, until /health answers",
    columns: ["start", "to /health", "dev-setup", "wrangler dev", "target", "CPU", "load (1 min)", "steps (s)"],
    rows,
    failures,
    notes: [
      "Fresh: a copy of the working tree with no .wrangler, .dev.vars, .dev-demo.json or built assets; restart: the same copy again. " +
        "Timed from the spawn of `npm run dev` to the first 200 from GET /health; 'dev-setup' is predev (assets, .dev.vars, seal, dev PKI, migrations of every database in one process, demo seed), " +
        "'wrangler dev' is from its spawn to /health. CPU: user + system seconds of every process of the start (npm, node, esbuild, openssl, workerd), sampled from /proc (a floor: processes shorter than 100 ms are missed); unlike the wall times it barely depends on the machine's load. A missed target is reported, not failed: on a shared machine the figures follow the load average shown.",
    ],
  };
}
