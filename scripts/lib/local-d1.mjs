// The local D1 databases (the global DB and every shard) opened in ONE process, for `npm run dev`'s
// set-up (scripts/dev-setup.mjs) and `npm run db:migrate` without --remote (scripts/migrate.mjs).
//
// `wrangler d1 migrations apply --local` starts a whole wrangler CLI per database and a new Miniflare
// (a workerd process) per migration and per query: 30-35 s a database on a 2-core machine
// (docs/decisions/dev-start.md). This does what it does, once: one Miniflare over wrangler's own
// persistence directory (<persist>/v3/d1, <persist> = .wrangler/state unless --persist-to), the
// databases keyed by the same ids (preview_database_id, else database_id), each migration's
// statements split the way wrangler splits them and run in one batch (one transaction) together with
// its `INSERT INTO d1_migrations (name)`, the table created with wrangler's own DDL. So `wrangler dev`
// reads exactly this state and `wrangler d1 migrations apply --local` afterwards finds nothing to apply.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const DEFAULT_MIGRATIONS_TABLE = "d1_migrations";

/**
 * Every `[[d1_databases]]` table of wrangler.toml, in file order: binding, the id wrangler's local
 * mode uses, and its migrations directory and table (wrangler's defaults when absent).
 */
export function d1Databases(toml = readFileSync(join(root, "wrangler.toml"), "utf8")) {
  const out = [];
  for (const block of toml.split(/^\[\[d1_databases\]\]\s*$/m).slice(1)) {
    const body = block.split(/^\[/m)[0];
    const field = (name) => new RegExp(`^\\s*${name}\\s*=\\s*"([^"]*)"`, "m").exec(body)?.[1];
    const binding = field("binding");
    if (!binding) continue;
    out.push({
      binding,
      id: field("preview_database_id") ?? field("database_id") ?? binding,
      migrationsDir: field("migrations_dir") ?? "migrations",
      migrationsTable: field("migrations_table") ?? DEFAULT_MIGRATIONS_TABLE,
    });
  }
  return out;
}

/** wrangler's local persistence root: --persist-to, else .wrangler/state beside wrangler.toml. */
export const localPersistPath = (persistTo) => (persistTo ? resolve(persistTo) : join(root, ".wrangler", "state"));

/**
 * The statements run inside workerd, next to the bindings: one request per query or batch. (Through
 * Miniflare's getD1Database proxy every prepare() is a round trip of its own from Node: 153 statements
 * a database made that the slow part.)
 */
const RUNNER = `export default {
  async fetch(request, env) {
    const { binding, query, statements } = await request.json();
    const db = env[binding];
    try {
      if (query !== undefined) return Response.json({ ok: true, results: (await db.prepare(query).all()).results });
      await db.batch(statements.map((statement) => db.prepare(statement)));
      return Response.json({ ok: true });
    } catch (err) {
      return Response.json({ ok: false, error: String(err?.cause?.message ?? err?.message ?? err) });
    }
  },
};`;

/**
 * Opens every local D1 database in one Miniflare. Returns { databases, db(binding), dispose() }, where
 * db(binding) has all(sql) (the rows) and batch(statements) (one transaction). Close it (dispose)
 * before `wrangler dev` starts: both would hold the same SQLite files.
 */
export async function openLocalD1({ persistTo, databases = d1Databases() } = {}) {
  const { Miniflare } = await import("miniflare");
  const mf = new Miniflare({
    modules: true,
    script: RUNNER,
    d1Persist: join(localPersistPath(persistTo), "v3", "d1"),
    d1Databases: Object.fromEntries(databases.map((d) => [d.binding, d.id])),
  });
  await mf.ready;
  const send = async (body) => {
    const res = await mf.dispatchFetch("http://local-d1/", { method: "POST", body: JSON.stringify(body) });
    const out = await res.json();
    if (!out.ok) throw new Error(out.error);
    return out;
  };
  return {
    databases,
    db: (binding) => ({
      all: async (query) => (await send({ binding, query })).results ?? [],
      batch: async (statements) => void (statements.length > 0 && (await send({ binding, statements }))),
    }),
    dispose: () => mf.dispose(),
  };
}

/** The migration file names wrangler would apply, in its order (`*.sql`, sorted). */
export function migrationNames(dir) {
  const path = resolve(root, dir);
  if (!existsSync(path)) return [];
  return readdirSync(path)
    .filter((name) => name.endsWith(".sql"))
    .sort();
}

/**
 * Applies the unapplied migrations to one opened database, as `wrangler d1 migrations apply` does.
 * Returns the names applied (empty: it was up to date). Throws naming the migration that failed;
 * the ones before it stay applied (each is its own transaction, as with wrangler).
 */
export async function applyMigrations(local, { binding, migrationsDir, migrationsTable }) {
  const db = local.db(binding);
  await db.batch([
    `CREATE TABLE IF NOT EXISTS ${migrationsTable}(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`,
  ]);
  const applied = new Set((await db.all(`SELECT name FROM ${migrationsTable} ORDER BY id`)).map((r) => r.name));
  const done = [];
  for (const name of migrationNames(migrationsDir)) {
    if (applied.has(name)) continue;
    const sql = `${readFileSync(resolve(root, migrationsDir, name), "utf8")}
								INSERT INTO ${migrationsTable} (name)
								values ('${name}');
						`;
    try {
      await db.batch(splitSqlQuery(sql));
    } catch (err) {
      throw new Error(`${binding}: migration ${name} failed: ${err.message}`);
    }
    done.push(name);
  }
  return done;
}

// ---------------------------------------------------------------------------------------------
// wrangler's SQL splitter (workers-sdk packages/wrangler/src/d1/splitter.ts and trimmer.ts, MIT OR
// Apache-2.0), ported as is so a migration is cut into the same statements wrangler sends: strings,
// identifiers and comments are skipped over, and BEGIN/CASE ... END (a trigger's body) stays whole.

export function splitSqlQuery(sql) {
  const trimmed = trimSqlQuery(sql);
  if (!mayContainMultipleStatements(trimmed)) return [trimmed];
  const split = splitSqlIntoStatements(trimmed);
  return split.length === 0 ? [trimmed] : split;
}

function trimSqlQuery(sql) {
  if (!sql.includes("BEGIN TRANSACTION")) return sql;
  const trimmed = sql.replace("BEGIN TRANSACTION;", "").replace("COMMIT;", "");
  if (trimmed.includes("BEGIN TRANSACTION")) throw new Error("the SQL contains several transactions; D1 runs each file in one transaction");
  return trimmed;
}

function mayContainMultipleStatements(sql) {
  const trimmed = sql.trimEnd();
  const i = trimmed.indexOf(";");
  return i !== -1 && i !== trimmed.length - 1;
}

function splitSqlIntoStatements(sql) {
  const statements = [];
  let str = "";
  const compoundStatementStack = [];
  const iterator = sql[Symbol.iterator]();
  let next = iterator.next();
  while (!next.done) {
    const char = next.value;
    if (compoundStatementStack[0]?.(str + char)) compoundStatementStack.shift();
    switch (char) {
      case `'`:
      case `"`:
      case "`":
        str += char + consumeUntilMarker(iterator, char);
        break;
      case `$`: {
        const dollarQuote = "$" + consumeWhile(iterator, isDollarQuoteIdentifier);
        str += dollarQuote;
        if (dollarQuote.endsWith("$")) str += consumeUntilMarker(iterator, dollarQuote);
        break;
      }
      case `-`:
        next = iterator.next();
        if (!next.done && next.value === "-") {
          consumeUntilMarker(iterator, "\n");
          str += "\n";
          break;
        } else {
          str += char;
          continue;
        }
      case `/`:
        next = iterator.next();
        if (!next.done && next.value === "*") {
          consumeUntilMarker(iterator, "*/");
          break;
        } else {
          str += char;
          continue;
        }
      case `;`:
        if (compoundStatementStack.length === 0) {
          statements.push(str);
          str = "";
        } else {
          str += char;
        }
        break;
      default:
        str += char;
        break;
    }
    if (isCompoundStatementStart(str)) compoundStatementStack.unshift(isCompoundStatementEnd);
    next = iterator.next();
  }
  statements.push(str);
  return statements.map((s) => s.trim()).filter((s) => s.length > 0);
}

function consumeWhile(iterator, predicate) {
  let next = iterator.next();
  let str = "";
  while (!next.done) {
    str += next.value;
    if (!predicate(str)) break;
    next = iterator.next();
  }
  return str;
}

const consumeUntilMarker = (iterator, endMarker) => consumeWhile(iterator, (str) => !str.endsWith(endMarker));

function isDollarQuoteIdentifier(str) {
  const lastChar = str.slice(-1);
  return lastChar !== "$" && (/[0-9_]/i.test(lastChar) || lastChar.toLowerCase() !== lastChar.toUpperCase());
}

const isCompoundStatementStart = (str) => /\s(BEGIN|CASE)\s$/i.test(str);
const isCompoundStatementEnd = (str) => /\sEND[;\s]$/.test(str);
