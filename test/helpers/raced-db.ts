/**
 * A D1 binding on which `competitor` runs just before the first batch: another writer won the race
 * between the verb's read and its write (D1 has no interactive transactions, so that window is real).
 */
export function racedDb(db: D1Database, competitor: () => Promise<unknown>): D1Database {
  let raced = false;
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "batch")
        return async (stmts: D1PreparedStatement[]) => {
          if (!raced) {
            raced = true;
            await competitor();
          }
          return target.batch(stmts);
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
