import { allShardDbs, globalDb } from "../../helpers/shards";

/**
 * The database as a refused request must leave it (the rule fuzz.test.ts holds every hostile request
 * to): every row of every table, except what the service's own background work writes on its own:
 * - delivery pipeline tables (webhook deliveries and attempts, e-mails): written after an accepted
 *   request, by work still running; `events` is compared by count (a refusal never publishes one);
 * - `idempotency_keys`: a refusal sent with an Idempotency-Key is stored to be replayed, by design;
 * - the key limiter's `last_used_at` and an endpoint's failure counters, updated late by alarms and
 *   delivery attempts.
 * It covers every database the service writes (the global one and each shard; one database when the
 * pool binds no shard of its own): a table's line holds its rows in each of them.
 */
const PIPELINE = new Set(["webhook_deliveries", "webhook_attempts", "email_outbox", "email_attempts"]);
const COUNTED = new Set(["events"]);
const BACKGROUND_COLUMNS = new Set(["api_keys.last_used_at", "webhook_endpoints.consecutive_failures", "webhook_endpoints.failing_since"]);

const DATABASES = [...new Set([globalDb, ...allShardDbs()])];

let queries: Promise<{ tables: string[]; statements: D1PreparedStatement[][] }> | undefined;

function snapshotQueries() {
  queries ??= (async () => {
    const { results } = await globalDb.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT IN ('d1_migrations', 'idempotency_keys') ORDER BY name",
    ).all<{ name: string }>();
    const tables = results.map((r) => r.name).filter((t) => !PIPELINE.has(t));
    const sql = await Promise.all(
      tables.map(async (t) => {
        if (COUNTED.has(t)) return `SELECT COUNT(*) AS rows FROM "${t}"`;
        const columns = (await globalDb.prepare(`SELECT name FROM pragma_table_info('${t}')`).all<{ name: string }>()).results
          .map((c) => c.name)
          .filter((c) => !BACKGROUND_COLUMNS.has(`${t}.${c}`));
        return `SELECT ${columns.map((c) => `"${c}"`).join(", ")} FROM "${t}" ORDER BY rowid`;
      }),
    );
    return { tables, statements: DATABASES.map((db) => sql.map((s) => db.prepare(s))) };
  })();
  return queries;
}

/** One line per table: its name and every row (in each database). */
export async function snapshot(): Promise<string[]> {
  const { tables, statements } = await snapshotQueries();
  const perDb = await Promise.all(DATABASES.map((db, d) => db.batch(statements[d]!)));
  return tables.map((t, i) => `${t}: ${perDb.map((rows) => JSON.stringify(rows[i]!.results)).join(" | ")}`);
}

/** The tables whose rows differ between two snapshots. */
export const changedTables = (before: string[], after: string[]) => after.flatMap((line, i) => (line !== before[i] ? [line.split(":")[0]!] : []));
