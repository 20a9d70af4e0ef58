// The portfolio section of scripts/bench.mjs: GET /org/audit-export of an organization whose chain holds
// BENCH_PORTFOLIO_ENTRIES (default 100,000) entries, timed, with wrangler dev's workerd peak memory.
// It runs its own wrangler dev on its own state: the entries are written straight into the local
// global database (real, linked SHA-256 hashes, as services/audit/chain.ts makes them) while no
// server holds its files, then the server is started again and the export downloaded and checked by
// the export's own verify.mjs under this Node.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { unzipSync } from "fflate";
import { api, fetchWithDeadline, randomSecrets, startFreshServer, startServer, stopServer } from "./lib/dev-server.mjs";
import { openLocalD1 } from "./lib/local-d1.mjs";
import { fmt, log, positiveInt } from "./lib/bench-util.mjs";
import { canonical, checkPool, POOL_RECORDS, poolRows, preparePool, runPool, seedPool } from "./bench-pool.mjs";

const ENTRIES = positiveInt("BENCH_PORTFOLIO_ENTRIES", 100_000);

const q = (s) => (s === null ? "NULL" : `'${String(s).replace(/'/g, "''")}'`);

/** `peakOf(ctx, fn)`: the largest workerd VmHWM rise while fn runs (bench.mjs's workerdPeakKib). */
export async function portfolioSection(ctx, peakOf) {
  const dir = join(ctx.tmp, "portfolio");
  mkdirSync(dir, { recursive: true });
  const secrets = randomSecrets();
  let server = await startFreshServer(join(dir, "state"), secrets);
  const all = server.secrets;
  const op = { token: all.OPERATOR_TOKEN };
  let org, admin, prepared;
  try {
    org = await api(server.base, "POST", "/operator/orgs", { ...op, body: { name: "Bench Portfolio" } });
    const user = await api(server.base, "POST", `/operator/orgs/${org.org_id}/users`, { ...op, body: { email: "auditor@example.com", name: "Auditor", role: "admin" } });
    ({ access_token: admin } = await api(server.base, "POST", `/operator/users/${user.user_id}/access-tokens`, { ...op, body: { org_id: org.org_id, ttl_seconds: 3600 } }));
    prepared = await preparePool(server.base, all.OPERATOR_TOKEN);
  } finally {
    await stopServer(server);
  }

  log(`portfolio: writing ${ENTRIES.toLocaleString("en")} chain entries of one organization`);
  const local = await openLocalD1({ persistTo: join(dir, "state") });
  let poolIds = [];
  try {
    const db = local.db("DB");
    const [head] = await db.all(`SELECT COALESCE(MAX(seq), 0) AS seq, (SELECT hash FROM audit_log WHERE chain_id = ${q(org.org_id)} ORDER BY seq DESC LIMIT 1) AS hash FROM audit_log WHERE chain_id = ${q(org.org_id)}`);
    let seq = head.seq;
    let prev = head.hash ?? "0".repeat(64);
    const start = Date.parse("2026-01-01T00:00:00Z");
    for (let done = 0; done < ENTRIES; ) {
      const batch = [];
      for (let i = 0; i < 500 && done < ENTRIES; i++, done++) {
        seq++;
        const entry = {
          id: `audit_bench${String(seq).padStart(10, "0")}`, org_id: org.org_id, chain_id: org.org_id, seq, action: "org.settings_updated", actor_type: "system", actor_id: null,
          ip: null, user_agent: null, data: { bench: seq, note: "portfolio bench entry" }, created_at: new Date(start + seq * 1000).toISOString(), prev_hash: prev,
        };
        const hash = createHash("sha256").update(canonical(entry)).digest("hex");
        batch.push(
          `INSERT INTO audit_log (id, org_id, chain_id, seq, action, actor_type, actor_id, ip, user_agent, data, created_at, prev_hash, hash) VALUES (${[entry.id, entry.org_id, entry.chain_id].map(q).join(", ")}, ${seq}, ${q(entry.action)}, 'system', NULL, NULL, NULL, ${q(JSON.stringify(entry.data))}, ${q(entry.created_at)}, ${q(prev)}, ${q(hash)})`,
        );
        prev = hash;
      }
      await db.batch(batch);
    }
    poolIds = await seedPool(local, prepared);
  } finally {
    await local.dispose();
  }

  server = await startServer(join(dir, "state"), all);
  const failures = [...prepared.failures];
  let exportRows = [];
  let pool = { failures: [] };
  try {
    // the pool first, the export after (docs/benchmarks.md, "Pools of vaulted records")
    try {
      pool = await runPool(server.base, prepared, poolIds);
    } catch (err) {
      // the server's own words on what went wrong
      pool = { failures: [`portfolio: ${err.message}\n${server.tail.slice(-60).join("\n")}`] };
    }
    failures.push(...pool.failures);
    const sectionCtx = { serverPid: server.child.pid };
    const measured = await peakOf(sectionCtx, async () => {
      const t0 = performance.now();
      const res = await fetchWithDeadline(`${server.base}/api/v2/org/audit-export`, { headers: { authorization: `Bearer ${admin}` } }, 10 * 60_000);
      return { status: res.status, bytes: res.bytes, ms: performance.now() - t0 };
    });
    const { status, bytes, ms } = measured.result;
    if (status !== 200) failures.push(`portfolio: the export answered ${status}`);
    const zipPath = join(dir, "export.zip");
    writeFileSync(zipPath, bytes);
    // the export's own verify.mjs, run from the ZIP by this Node
    const script = status === 200 ? unzipSync(new Uint8Array(bytes), { filter: (f) => f.name === "verify.mjs" })["verify.mjs"] : undefined;
    if (script) writeFileSync(join(dir, "verify.mjs"), script);
    const pem = all.SEAL_CERTIFICATE.replace(/\\n/g, "\n");
    const der = Buffer.from(pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, ""), "base64");
    const pin = createHash("sha256").update(der).digest("hex");
    const verify = script ? spawnSync(process.execPath, [join(dir, "verify.mjs"), "--audit-export", zipPath, "--seal-sha256", pin], { encoding: "utf8", timeout: 10 * 60_000 }) : null;
    if (verify?.status !== 0) failures.push(`portfolio: verify.mjs --audit-export exited ${verify?.status ?? "(no verify.mjs in the export)"}: ${(verify?.stdout ?? "").split("\n").filter((l) => l.startsWith("BROKEN")).join(" ")}`);
    const mib = (kib) => (Number.isFinite(kib) ? `+${fmt(kib / 1024, 0)} MiB` : "n/a");
    exportRows = [
        ["export time", `${fmt(ms / 1000, 1)} s`, `${fmt(ENTRIES / (ms / 1000), 0)} entries/s, ZIP of ${fmt(bytes.length / 1e6, 1)} MB`],
        ["workerd peak RSS rise", mib(measured.riseKib), "VmHWM over the whole download (runtime and local D1 included)"],
        ["verify.mjs --audit-export", verify?.status === 0 ? "verified" : `exit ${verify?.status}`, "the export's own script, on the ZIP, under this Node"],
    ];
  } finally {
    await stopServer(server);
  }
  // checked with no server running, straight in the local databases
  const after = await openLocalD1({ persistTo: join(dir, "state") });
  let check;
  try {
    check = await checkPool(after, prepared, poolIds, pool.poolId);
    failures.push(...check.failures);
  } finally {
    await after.dispose();
  }
  return {
    title: `Portfolio: a pool of ${POOL_RECORDS.toLocaleString("en")} vaulted records, and GET /org/audit-export of ${ENTRIES.toLocaleString("en")} chain entries (wrangler dev)`,
    columns: ["measure", "value", "detail"],
    rows: [...poolRows(prepared, pool, check), ...exportRows],
    notes: [
      `BENCH_POOL_RECORDS (default 10,000) sets the pool's size: two records vaulted through the API (one a shard) are cloned straight into the local shards (scripts/bench-pool.mjs), then offered, accepted and moved through the API and the pool's Durable Object; the check after reads every shard with no server running.`,
      `BENCH_PORTFOLIO_ENTRIES (default 100,000) sets the chain's length; entries are read 500 a page and deflated into the response as read, so the peak should not grow with it.`,
    ],
    failures,
  };
}
