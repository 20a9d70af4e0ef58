// The capacity measurement (docs/scaling.md): one envelope lifecycle driven through the Worker's own
// fetch and queue handlers inside the Workers runtime, with its D1, R2, Queue and Durable Object
// bindings wrapped by counting proxies (each D1 binding, `DB` and every `SHARD_<n>`, counted apart). Same pool, bindings and global setup as vitest.config.ts; only
// the harness under scripts/ runs (`npm test`'s globs never include it). Run by
// `BENCH_ONLY=capacity npm run bench`, or directly:
//   CAPACITY_OUT=$(mktemp) npx vitest run --config vitest.capacity.config.ts
// (CAPACITY_RUNS: lifecycles measured, default 10; CAPACITY_STORED: envelopes stored on the measured
// organization's shard before them, default 0)
import { defineConfig } from "vitest/config";
import base from "./vitest.config";

type Config = { test?: { globalSetup?: string | string[]; [k: string]: unknown }; [k: string]: unknown };

export default defineConfig(async (env) => {
  const config = (await (base as unknown as (e: typeof env) => Promise<Config>)(env)) as Config;
  const globalSetup = config.test?.globalSetup ?? [];
  return {
    ...config,
    test: {
      ...config.test,
      include: ["scripts/bench-capacity.test.ts"],
      exclude: [],
      globalSetup: [...(Array.isArray(globalSetup) ? globalSetup : [globalSetup]), "./scripts/bench-capacity-probe.mjs"],
      testTimeout: 600_000,
    },
  } as never;
});
