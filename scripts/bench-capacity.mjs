// Bench section `capacity` (BENCH_ONLY=capacity npm run bench): the measured cost of one envelope
// lifecycle, for the capacity model in docs/scaling.md.
//
// Runs scripts/bench-capacity.test.ts under vitest.capacity.config.ts (the Workers runtime, real local
// bindings wrapped by counting proxies), writes its JSON to scripts/bench-capacity.json (the input of
// scripts/capacity-sim.mjs, kept in the repository so the simulation runs without a bench), prints the
// per-step table, and then the simulation of the default day (200,000 envelopes) against it.
// BENCH_CAPACITY_RUNS (default 10): lifecycles measured after one warm-up; the figures are their mean.
// BENCH_CAPACITY_STORED (default 0): envelopes already stored on the measured organization's shard when
// the runs start (seeded by the harness: real lifecycles in four organizations copied in SQL).
// Besides the table, the notes give the D1 work per database (global DB, shards), each database's
// storage per envelope and the global database's growth per organization and per keyed POST. A run with stored envelopes writes its JSON to
// the temporary directory, not to scripts/bench-capacity.json (the simulation's input stays the standard
// measurement), and prints scripts/bench-capacity-compare.mjs of the two: per step and per statement,
// the rows read that the stored envelopes added.
import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root } from "./lib/dev-server.mjs";

const STANDARD = join(root, "scripts", "bench-capacity.json");
const STORED = Math.max(0, Number.parseInt(process.env.BENCH_CAPACITY_STORED ?? "0", 10) || 0);
const OUT = STORED > 0 ? join(tmpdir(), `bench-capacity-stored-${STORED}.json`) : STANDARD;

function runNode(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: "false", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.once("error", reject);
    child.once("exit", (code, signal) => (code === 0 ? resolve(out) : reject(new Error(`node ${args.join(" ")} exited with ${code ?? signal}:\n${out.slice(-4000)}`))));
  });
}

const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d }) : "-");
const kb = (b) => `${fmt(b / 1024, 1)} KiB`;

export async function capacitySection(ctx) {
  ctx.setPhase?.("capacity");
  const runs = process.env.BENCH_CAPACITY_RUNS ?? "10";
  console.error(`bench: capacity: ${runs} envelope lifecycles against counting bindings (vitest, Workers runtime)${STORED > 0 ? `, ${STORED} envelopes stored first` : ""}`);
  const started = Date.now();
  const failures = [];
  try {
    await runNode([join(root, "node_modules", "vitest", "vitest.mjs"), "run", "--config", "vitest.capacity.config.ts"], { CAPACITY_OUT: OUT, CAPACITY_RUNS: runs, CAPACITY_STORED: String(STORED) });
  } catch (err) {
    // The harness wrote its figures but vitest still failed (an unhandled rejection in a job under
    // test): report the figures and the failure. Without fresh figures the section fails.
    let fresh = false;
    try {
      fresh = statSync(OUT).mtimeMs >= started;
    } catch {
      /* no file */
    }
    if (!fresh) throw err;
    failures.push(`capacity: vitest reported errors after the figures were written: ${String(err.message).slice(-1500)}`);
  }
  const m = JSON.parse(readFileSync(OUT, "utf8"));
  const row = (name, s) => [
    name,
    fmt(s.worker_requests, 0),
    fmt(s.d1_statements, 0),
    fmt(s.d1_round_trips, 0),
    fmt(s.d1_rows_read, 0),
    fmt(s.d1_rows_written, 0),
    `${fmt(s.r2_class_a, 0)} / ${fmt(s.r2_class_b, 0)}`,
    `${kb(s.r2_bytes_written)} / ${kb(s.r2_bytes_read)}`,
    `${fmt(s.queue_messages_sent, 0)} / ${fmt(s.queue_messages_consumed, 0)}`,
    fmt(s.do_requests, 0),
    fmt(s.cpu_ms, 0),
  ];
  const rows = m.steps.map((s) => row(s.name, s));
  rows.push(row("lifecycle total (bare row excluded)", m.lifecycle));
  for (const [name, p] of Object.entries(m.periodic ?? {})) rows.push(p.error ? [name, `FAILED: ${p.error}`, ...Array(9).fill("")] : row(`${name}, per ${p.per}`, p));

  const sim = await runNode([join(root, "scripts", "capacity-sim.mjs"), "--measured", OUT]);
  const compared = STORED > 0 ? await runNode([join(root, "scripts", "bench-capacity-compare.mjs"), STANDARD, OUT]) : "";
  const growing = (m.growing_statements ?? []).filter((g) => g.growth_per_stored_envelope >= 1);
  const stored = Object.entries(m.d1_stored_per_envelope ?? {}).map(([t, v]) => `${t} ${v.rows}x${Math.round(v.bytes / Math.max(1, v.rows))} B`).join(", ");
  // D1 work per database (global = DB, shards = every SHARD_<n>): statements / round trips / rows read / rows written
  const part = (d) => (d ? `${fmt(d.statements, 0)} / ${fmt(d.round_trips, 0)} / ${fmt(d.rows_read, 0)} / ${fmt(d.rows_written, 0)}` : "-");
  const perDb = m.layout
    ? [
        `D1 per database (${m.layout.separate_databases ? `global DB and ${m.layout.shards} shard(s), measured organization on ${m.layout.measured_shard_label}` : "one database: every statement counted as global"}), statements / round trips / rows read / rows written per lifecycle: ` +
          [...m.steps.filter((s) => !/^bare/.test(s.name)).map((s) => `${s.name.split(":")[0]}: global ${part(s.by_database?.global)}, shards ${part(s.by_database?.shards)}`), `lifecycle: global ${part(m.lifecycle_by_database?.global)}, shards ${part(m.lifecycle_by_database?.shards)}`].join("; ") +
          ".",
        `Stored per envelope per database (file growth; rows / logical bytes): ${Object.entries(m.databases ?? {})
          .map(([label, d]) => `${label} ${fmt(d.file_bytes_per_envelope, 0)} B file, ${fmt(d.stored_per_envelope?.rows ?? 0, 2)} rows / ${fmt(d.stored_per_envelope?.bytes ?? 0, 0)} B${Object.keys(d.stored_per_envelope?.tables ?? {}).length && label === "global" ? ` (${Object.entries(d.stored_per_envelope.tables).map(([t, v]) => `${t} ${v.rows}`).join(", ")})` : ""}`)
          .join("; ")}. ` +
          `Per organization (org + key + user): ${Object.entries(m.databases ?? {})
            .map(([label, d]) => `${label} ${fmt(d.per_organization?.rows ?? 0, 0)} rows / ${fmt(d.per_organization?.bytes ?? 0, 0)} B`)
            .join("; ")}. ` +
          (m.global_per_keyed_post
            ? `Per keyed POST (Idempotency-Key), on global: +${fmt(m.global_per_keyed_post.global_extra.statements, 0)} statements, +${fmt(m.global_per_keyed_post.global_extra.rows_written, 0)} rows written, ${fmt(m.global_per_keyed_post.global_stored.rows, 0)} row / ${fmt(m.global_per_keyed_post.global_stored.bytes, 0)} B kept 24 h.`
            : ""),
      ]
    : [];
  return {
    title: `Capacity: one envelope lifecycle, mean of ${m.runs}${STORED > 0 ? `, ${m.envelopes_stored_before_runs} envelopes already stored` : ""} (Workers runtime, local bindings behind counting proxies; docs/scaling.md)`,
    columns: ["step", "Worker req", "D1 stmts", "D1 trips", "rows read", "rows written", "R2 A / B", "R2 bytes w / r", "queue sent / consumed", "DO req", "CPU ms"],
    rows,
    notes: [
      `Lifecycle: ${m.lifecycle_definition}. Template PDF ${kb(m.template_pdf_bytes)}.`,
      "Counts are measured: every D1 statement's meta (rows_read, rows_written, duration), every R2 call and object size, every Durable Object stub call, every queue message. " +
        "CPU ms is the workerd process's user+system time around each step (10 ms ticks, averaged over the runs): it includes miniflare's local D1/R2 simulators, so it is an upper bound of billed CPU; the bare row is the harness floor.",
      `D1 stored per envelope${m.layout ? ` on ${m.layout.measured_shard_label}` : ""}: ${fmt(m.d1_file_bytes_per_envelope, 0)} B of database file (size_after delta); rows x logical bytes: ${stored}.`,
      ...perDb,
      `Rows read that grow with the database: ${m.d1_rows_read_growth_per_stored_envelope < 0 ? "" : "+"}${fmt(m.d1_rows_read_growth_per_stored_envelope, 2)} per lifecycle per envelope already stored` +
      (m.d1_rows_read_growth_per_stored_envelope < 0 ? " (a fitted slope below zero is run-to-run noise; the simulation charges it as none)" : "") +
        (growing.length ? ` (${growing.map((g) => `${g.sql.slice(0, 90)}: +${g.growth_per_stored_envelope}`).join("; ")})` : "") +
        Object.entries(m.periodic ?? {})
          .filter(([, p]) => p.d1_rows_read_growth_per_stored_envelope)
          .map(([name, p]) => `; ${name.split(" (")[0]}: +${fmt(p.d1_rows_read_growth_per_stored_envelope, 2)} per ${p.per} per envelope stored (${p.statements?.[0]?.sql.slice(0, 70) ?? "?"}…)`)
          .join("") +
        `. D1 meta.duration is not shown: the local simulator's clock is frozen during SQLite work. Webhook receipts per endpoint: ${JSON.stringify(m.webhook_receipts_per_endpoint ?? null)}.`,
      `Static plans with a full scan (plan lines, not proof of a runtime scan: the growth above is): ${(m.full_scans ?? []).length ? m.full_scans.map((f) => `${f.sql.slice(0, 70)}… [${f.plan}]`).join("; ") : "none"}.`,
      ...(STORED > 0
        ? [
            `Stored before the runs: ${JSON.stringify(m.stored_seeding)}. Against the standard measurement (scripts/bench-capacity.json, node scripts/bench-capacity-compare.mjs):\n\n${compared.trimEnd()}`,
          ]
        : []),
      `Written to ${STORED > 0 ? OUT : "scripts/bench-capacity.json"}; the simulation of the default day against it (node scripts/capacity-sim.mjs):\n\n${sim.trimEnd()}`,
    ],
    failures: [...failures, ...Object.entries(m.periodic ?? {}).filter(([, p]) => p.error).map(([name, p]) => `capacity: ${name}: ${p.error}`)],
  };
}
