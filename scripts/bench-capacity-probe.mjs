// Global setup of the capacity measurement (vitest.capacity.config.ts; Node side). A loopback HTTP
// server the in-runtime harness (scripts/bench-capacity.test.ts) calls between lifecycle steps:
//
//   GET  /cpu      { cpu_ms }: user + system CPU time of every workerd process started by this vitest
//                  process (from /proc/<pid>/stat; 10 ms ticks), so a step's CPU is the difference
//                  of two readings. workerd hosts the Worker under test *and* miniflare's local
//                  D1/R2/Queue/Durable Object simulators, so the figure is an upper bound of the CPU
//                  Cloudflare would bill the Worker for.
//   POST /result   the harness's JSON; written to $CAPACITY_OUT (default: printed to stdout).
//   Provides `capacityRuns` ($CAPACITY_RUNS, default 10) and `capacityStored` ($CAPACITY_STORED, default 0:
//   envelopes stored before the measured lifecycles) to the harness.
//
// Plain JS: it runs in Node, outside the Workers type-check.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";

const TICK_MS = 10; // USER_HZ is 100 on Linux

function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const name = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { name, ppid: Number(f[1]), utime: Number(f[11]), stime: Number(f[12]) };
  } catch {
    return null;
  }
}

/** workerd processes whose ancestry reaches this (vitest) process. */
function workerdCpuMs() {
  const all = new Map();
  for (const entry of readdirSync("/proc")) if (/^\d+$/.test(entry)) {
    const s = stat(entry);
    if (s) all.set(Number(entry), s);
  }
  let ms = 0;
  let count = 0;
  for (const [pid, s] of all) {
    if (s.name !== "workerd") continue;
    let p = pid;
    for (let depth = 0; depth < 20 && p > 1; depth++) {
      if (p === process.pid) {
        ms += (s.utime + s.stime) * TICK_MS;
        count++;
        break;
      }
      p = all.get(p)?.ppid ?? 0;
    }
  }
  return { cpu_ms: ms, processes: count };
}

/** @param {import("vitest/node").TestProject} project */
export default async function setup(project) {
  const server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/cpu") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(workerdCpuMs()));
      return;
    }
    if (req.method === "POST" && req.url === "/result") {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        if (process.env.CAPACITY_OUT) writeFileSync(process.env.CAPACITY_OUT, body);
        else console.log(body);
        res.writeHead(204).end();
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  project.provide("capacityProbePort", server.address().port);
  // lifecycles measured after one warm-up (CAPACITY_RUNS, default 10): the figures are their mean
  const runs = Number(process.env.CAPACITY_RUNS);
  project.provide("capacityRuns", Number.isInteger(runs) && runs >= 1 ? runs : 10);
  // envelopes already stored when the measured lifecycles start (CAPACITY_STORED, default 0)
  const stored = Number(process.env.CAPACITY_STORED ?? 0);
  project.provide("capacityStored", Number.isInteger(stored) && stored > 0 ? stored : 0);
  return () => new Promise((resolve) => server.close(resolve));
}
