import { env } from "cloudflare:test";

// Runs before every test file. The runtime is shared by the files a worker runs (vitest.config.ts,
// `isolate: false`: starting workerd and loading the Worker once per file cost more than most files'
// tests), so each file first empties what the files before it stored and starts from the state a fresh
// runtime had: migrated, empty databases and an empty bucket. (`reset()` of cloudflare:test is not
// enough: it left a database that was still open with its tables and rows.)

// The test pool's three databases (wrangler.toml): the global DB and two shards, all on the same migrations;
// both shards registered open, so new test organizations are placed across them (docs/decisions/shards.md).
const databases = [env.DB, env.SHARD_1!, env.SHARD_2!];

const migrationsTable = `CREATE TABLE IF NOT EXISTS d1_migrations (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  name       TEXT UNIQUE,
  applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`;

/**
 * A new database gets every migration in one batch (one round trip; the same statements and the same
 * d1_migrations rows as applyD1Migrations writes one migration at a time); a used one loses every row,
 * in one batch too (foreign keys checked at its end, when every table is empty).
 */
async function fresh(db: D1Database) {
  const { results } = await db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'")
    .all<{ name: string }>();
  if (results.length === 0) {
    await db.batch([
      db.prepare(migrationsTable),
      ...env.TEST_MIGRATIONS.flatMap((m) => [...m.queries.map((q) => db.prepare(q)), db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(m.name)]),
    ]);
    return;
  }
  await db.batch([db.prepare("PRAGMA defer_foreign_keys = on"), ...results.map(({ name }) => db.prepare(`DELETE FROM "${name}"`)), db.prepare("DELETE FROM sqlite_sequence")]);
}

async function emptyBucket(bucket: R2Bucket) {
  for (;;) {
    const { objects } = await bucket.list({ limit: 1000 });
    if (objects.length === 0) return;
    await bucket.delete(objects.map((o) => o.key));
  }
}

await Promise.all([...databases.map(fresh), emptyBucket(env.DOCS)]);
const at = "2026-01-01T00:00:00.000Z";
await env.DB.prepare("INSERT OR IGNORE INTO shards (id, state, created_at, updated_at) VALUES (1, 'open', ?1, ?1), (2, 'open', ?1, ?1)").bind(at).run();
