// Small helpers shared by the sections of `npm run bench` (scripts/bench*.mjs).

/** A positive integer from the environment (BENCH_* knobs), or the fallback; anything else stops the bench. */
export function positiveInt(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (Number.isInteger(n) && n >= 1) return n;
  console.error(`bench: FAILED: ${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  process.exit(2);
}

export const log = (msg) => console.error(`bench: ${msg}`);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "-");
export const ratio = (a, b) => (b > 0 ? `${(a / b).toFixed(2)}x` : "-");

/** The body of the envelope every section creates (one `envelope.created` each). */
export const newEnvelope = () => ({ envelope_name: "Bench contract", customer_email: "bench@example.com", customer_name: "Bench Customer" });

/** The q-quantile (0..1) of the values, nearest rank; NaN for none. */
export const percentile = (values, q) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};

/** Polls `done` every 100 ms until it holds or the time is up; returns whether it held. */
export async function waitFor(done, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await sleep(100);
  return done();
}
