import type { Table } from "drizzle-orm";

type Columns<T extends Table> = T["_"]["columns"];

/** What D1 returns for one column: JSON columns come back as text, boolean ones as 0/1. */
type RawValue<C> = C extends { _: { columnType: "SQLiteTextJson" | "SQLiteBlobJson"; notNull: infer N } }
  ? N extends true ? string : string | null
  : C extends { _: { columnType: "SQLiteBoolean"; notNull: infer N } }
    ? N extends true ? number : number | null
    : C extends { _: { data: infer D; notNull: infer N } }
      ? N extends true ? D : D | null
      : never;

/**
 * A table's row as raw SQL through D1 returns it: the SQL column names (snake_case) with the types
 * the drizzle schema declares, so a repository's row type is derived from the schema, never restated.
 */
export type Row<T extends Table> = { [K in keyof Columns<T> as Columns<T>[K]["_"]["name"]]: RawValue<Columns<T>[K]> };
