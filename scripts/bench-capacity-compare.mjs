// Compares two capacity measurements (scripts/bench-capacity.test.ts JSON) taken at different numbers of
// envelopes already stored, e.g. `CAPACITY_STORED=0` and `CAPACITY_STORED=5000` (docs/scaling.md,
// "What grows with the database"):
//
//   node scripts/bench-capacity-compare.mjs scripts/bench-capacity.json "$TMPDIR/capacity-5000.json"
//
// Prints each step's mean rows read in both, the difference and the growth per envelope stored
// (difference / stored difference), then every statement whose mean rows read per lifecycle differ.
// Plain Node; it reads only the two files.
import { readFileSync } from "node:fs";

const [a, b] = process.argv.slice(2).map((p) => ({ path: p, m: JSON.parse(readFileSync(p, "utf8")) }));
if (!a || !b) {
  console.error("usage: node scripts/bench-capacity-compare.mjs <fewer-stored.json> <more-stored.json>");
  process.exit(2);
}
const stored = (m) => m.envelopes_stored_before_runs ?? 0;
const span = stored(b.m) - stored(a.m);
const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "-");
const per = (d) => (span > 0 ? (d / span).toFixed(5) : "-");

console.log(`A: ${a.path} (${stored(a.m)} envelopes stored, ${a.m.runs} runs)  B: ${b.path} (${stored(b.m)} stored, ${b.m.runs} runs)\n`);
console.log(["step", "rows read A", "rows read B", "B - A", "per envelope stored", "slope within A", "slope within B"].join(" | "));
let total = 0;
for (const sb of b.m.steps) {
  const sa = a.m.steps.find((s) => s.name === sb.name);
  if (!sa) continue;
  const d = sb.d1_rows_read - sa.d1_rows_read;
  if (!sb.name.startsWith("bare")) total += d;
  console.log([sb.name, fmt(sa.d1_rows_read), fmt(sb.d1_rows_read), fmt(d), per(d), sa.d1_rows_read_growth_per_stored_envelope, sb.d1_rows_read_growth_per_stored_envelope].join(" | "));
}
console.log(["lifecycle", fmt(a.m.lifecycle.d1_rows_read), fmt(b.m.lifecycle.d1_rows_read), fmt(total), per(total), a.m.d1_rows_read_growth_per_stored_envelope, b.m.d1_rows_read_growth_per_stored_envelope].join(" | "));
// the same per database (global, the shards), when both measurements counted each database
for (const part of ["global", "shards"]) {
  const x = a.m.lifecycle_by_database?.[part]?.rows_read;
  const y = b.m.lifecycle_by_database?.[part]?.rows_read;
  if (x === undefined || y === undefined) continue;
  console.log([`lifecycle, ${part}`, fmt(x), fmt(y), fmt(y - x), per(y - x), "", ""].join(" | "));
}

if (!a.m.statement_reads || !b.m.statement_reads) {
  console.log(`\nper statement: ${!a.m.statement_reads ? a.path : b.path} has no statement_reads (measured before the harness recorded them); re-run it to compare statements.`);
  process.exit(0);
}
// A statement is keyed by its database and text (a measurement taken before the harness counted each
// database has no `db`: its statements are keyed by text alone, as are the other file's when either
// lacks it); its step is the first it ran in (the fan-out batch runs in every publish).
const byDb = (a.m.statement_reads ?? []).some((s) => s.db) && (b.m.statement_reads ?? []).some((s) => s.db);
const key = (s) => (byDb ? `[${s.db}] ${s.sql}` : s.sql);
const reads = (m) => new Map((m.statement_reads ?? []).map((s) => [key(s), s]));
const ra = reads(a.m);
const rb = reads(b.m);
const rows = [];
for (const k of new Set([...ra.keys(), ...rb.keys()])) {
  const x = ra.get(k)?.rows_read_per_lifecycle ?? 0;
  const y = rb.get(k)?.rows_read_per_lifecycle ?? 0;
  if (x !== y) rows.push({ step: (ra.get(k) ?? rb.get(k)).step, sql: key(ra.get(k) ?? rb.get(k)), x, y, only: !ra.has(k) ? "B only" : !rb.has(k) ? "A only" : "" });
}
rows.sort((p, q) => Math.abs(q.y - q.x) - Math.abs(p.y - p.x));
console.log(`\nstatements whose mean rows read per lifecycle differ (${rows.length}; [step] is the first step it ran in):`);
for (const r of rows) console.log(`${fmt(r.x, 2)} -> ${fmt(r.y, 2)} (${r.y - r.x > 0 ? "+" : ""}${fmt(r.y - r.x, 2)}, ${per(r.y - r.x)} per stored) ${r.only} [${r.step.split(":")[0]}] ${r.sql.slice(0, 220)}`);
