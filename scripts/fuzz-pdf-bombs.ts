// The decode budget's fuzz at scale: `npm run fuzz:pdf` (FUZZ_RUNS, default 10,000; FUZZ_SEED to replay).
// Runs the bomb grammar of test/helpers/pdf-bomb-grammar.ts against the budget check itself, in Node
// (the Worker's own module, unchanged): every bomb must be refused with 413 or 422, every benign file
// of the same obfuscations must pass. The upload paths run a bounded number of cases in `npm test`
// (test/hardening/pdf-bomb-fuzz.spec.ts). Prints `N passed, N failed` and exits non-zero on a failure.
import fc from "fast-check";
import { assertWithinDecodeBudget } from "../src/pdf/budget/decode-budget";
import { bombCase, bombPdf, type BombCase } from "../test/helpers/pdf-bomb-grammar";

const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
let passed = 0;
let failed = 0;
const failures: string[] = [];

async function verdict(c: BombCase): Promise<string> {
  try {
    await assertWithinDecodeBudget(bombPdf(c));
    return "accepted";
  } catch (err) {
    const status = (err as { status?: number }).status;
    return status === 413 || status === 422 ? `refused ${status}` : `threw ${String(err)}`;
  }
}

const started = Date.now();
await fc.assert(
  fc.asyncProperty(fc.boolean(), bombCase(false), bombCase(true), async (benign, bomb, control) => {
    const c = benign ? control : bomb;
    const v = await verdict(c);
    const ok = benign ? v === "accepted" : v.startsWith("refused");
    if (ok) passed++;
    else {
      failed++;
      if (failures.length < 20) failures.push(`${v}: ${JSON.stringify(c)}`);
    }
    if ((passed + failed) % 500 === 0) console.error(`${passed + failed} cases (${passed} passed, ${failed} failed), ${Math.round((Date.now() - started) / 1000)} s`);
  }),
  { numRuns: runs, seed },
);
for (const f of failures) console.log(`FAILED ${f}`);
console.log(`seed ${seed}: ${passed} passed, ${failed} failed (${Math.round((Date.now() - started) / 1000)} s)`);
process.exit(failed ? 1 : 0);
