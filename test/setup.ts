import { applyD1Migrations, env } from "cloudflare:test";

// The test pool's three databases (wrangler.toml): the global DB and two shards, all on the same migrations;
// both shards registered open, so new test organizations are placed across them (docs/decisions/shards.md).
await Promise.all([env.DB, env.SHARD_1!, env.SHARD_2!].map((db) => applyD1Migrations(db, env.TEST_MIGRATIONS)));
const at = "2026-01-01T00:00:00.000Z";
await env.DB.prepare("INSERT OR IGNORE INTO shards (id, state, created_at, updated_at) VALUES (1, 'open', ?1, ?1), (2, 'open', ?1, ?1)").bind(at).run();
