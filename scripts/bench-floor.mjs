// The latency section's floor rows (issue 17 item 1): the hops of a partner read and a create, done by a
// bare Worker with no code of ours, in the same runtime wrangler dev uses (workerd via Miniflare, a
// disk-backed local D1 and a Durable Object), measured at the same connections next to that Worker's own
// bare route. What the local runtime charges for a Durable Object round trip, a D1 read and a D1 write
// batch, whoever makes them, is visible here; the service's rows are read against it.
import autocannon from "autocannon";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Miniflare } from "miniflare";

const WORKER = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  n = 0;
  async admit() { this.n += 1; return { ok: true, n: this.n }; }
}
const SCHEMA_ROW = "SELECT id, status, name, org_id, updated_at, audit_seq FROM envelopes WHERE id = ? AND org_id = ?";
export default {
  async fetch(req, env) {
    const path = new URL(req.url).pathname;
    if (path === "/health") return Response.json({ ok: true });
    const admit = () => env.L.get(env.L.idFromName("one-key")).admit();
    if (path === "/do") return Response.json(await admit());
    if (path === "/do-read") {
      await admit();
      return Response.json(await env.DB.prepare(SCHEMA_ROW).bind("env_1", "org_1").first());
    }
    if (path === "/do-write") {
      await admit();
      const id = crypto.randomUUID();
      const at = new Date().toISOString();
      const results = await env.DB.batch([
        env.DB.prepare("INSERT INTO customers (id, org_id, email) VALUES (?, 'org_1', 'a@example.com') ON CONFLICT (org_id, email) DO NOTHING").bind(crypto.randomUUID()),
        env.DB.prepare("INSERT INTO envelopes (id, org_id, customer_id, name, status, audit_seq, updated_at) VALUES (?, 'org_1', (SELECT id FROM customers WHERE org_id = 'org_1' AND email = 'a@example.com'), 'Bench', 'pending', 1, ?)").bind(id, at),
        env.DB.prepare("INSERT INTO audit_log (id, chain_id, seq, data, hash) VALUES (?, ?, 1, ?, ?)").bind(crypto.randomUUID(), id, '{"a":1}', "0".repeat(64)),
        env.DB.prepare("INSERT INTO events (id, org_id, envelope_id, data, created_at) SELECT ?, org_id, id, json_object('id', id), ? FROM envelopes WHERE id = ?").bind(crypto.randomUUID(), at, id),
        env.DB.prepare(SCHEMA_ROW).bind(id, "org_1"),
      ]);
      return Response.json(results[4].results[0], { status: 201 });
    }
    return new Response("unknown", { status: 404 });
  },
};`;

const SCHEMA = [
  "CREATE TABLE customers (id TEXT PRIMARY KEY, org_id TEXT NOT NULL, email TEXT NOT NULL)",
  "CREATE UNIQUE INDEX customers_email_uq ON customers (org_id, email)",
  "CREATE TABLE envelopes (id TEXT PRIMARY KEY, org_id TEXT NOT NULL, customer_id TEXT, name TEXT, status TEXT, audit_seq INTEGER, updated_at TEXT)",
  "CREATE INDEX envelopes_org_idx ON envelopes (org_id, updated_at)",
  "CREATE TABLE audit_log (id TEXT PRIMARY KEY, chain_id TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT, hash TEXT)",
  "CREATE UNIQUE INDEX audit_chain_seq_uq ON audit_log (chain_id, seq)",
  "CREATE TABLE events (id TEXT PRIMARY KEY, org_id TEXT, envelope_id TEXT, data TEXT, created_at TEXT, dispatched_at TEXT)",
  "CREATE INDEX events_undispatched_idx ON events (dispatched_at, created_at)",
  "INSERT INTO envelopes (id, org_id, name, status, audit_seq, updated_at) VALUES ('env_1', 'org_1', 'Bench', 'sent', 3, '2026-01-01T00:00:00.000Z')",
];

function cannon(opts, duration, connections) {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ connections, duration, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
    instance.on("error", reject);
  });
}

/**
 * Runs the floor rows: a bare route, a Durable Object round trip, DO + one D1 read, DO + the create's
 * five-statement D1 batch. Returns rows for the latency table, each with its p99 against this Worker's
 * own bare route.
 */
export async function floorRows({ duration, connections, warmup, log }) {
  const persist = mkdtempSync(join(tmpdir(), "bench-floor-"));
  const mf = new Miniflare({
    modules: true,
    script: WORKER,
    compatibilityDate: "2026-04-20",
    d1Databases: ["DB"],
    d1Persist: join(persist, "d1"),
    durableObjects: { L: "Counter" },
    durableObjectsPersist: join(persist, "do"),
  });
  try {
    const url = await mf.ready;
    const db = await mf.getD1Database("DB");
    for (const sql of SCHEMA) await db.prepare(sql).run();
    const routes = [
      { name: "floor: bare Worker, GET /health", path: "/health" },
      { name: "floor: + a Durable Object round trip", path: "/do" },
      { name: "floor: + DO + one D1 read (the status read's hops)", path: "/do-read" },
      { name: "floor: + DO + a 5-statement D1 write batch (a create's)", path: "/do-write", method: "POST" },
    ];
    const results = [];
    for (const route of routes) {
      log(`${route.name}: ${duration} s at ${connections} connections`);
      const opts = { url: new URL(route.path, url).toString(), method: route.method ?? "GET" };
      await cannon(opts, warmup, connections);
      results.push({ route, r: await cannon(opts, duration, connections) });
    }
    return results;
  } finally {
    await mf.dispose();
    rmSync(persist, { recursive: true, force: true });
  }
}
