/**
 * A D1 binding that calls `before(sql)` ahead of every statement it runs: each run/first/all/raw, each
 * statement of a batch (all of them before the batch is sent, so a throw runs none) and each statement
 * of an exec. The statements themselves run unchanged; what `before` throws is what the caller sees.
 * The base of the counting and the failing databases the tests use.
 */
export function interceptDb(db: D1Database, before: (sql: string) => void): D1Database {
  const real = new WeakMap<object, D1PreparedStatement>();
  const sqlOf = new WeakMap<object, string>();
  const wrap = (stmt: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...args: unknown[]) => wrap(target.bind(...args), sql);
        if (prop === "run" || prop === "first" || prop === "all" || prop === "raw") {
          const method = Reflect.get(target, prop, target) as (...args: unknown[]) => unknown;
          return (...args: unknown[]) => {
            before(sql);
            return method.apply(target, args);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    real.set(proxy, stmt);
    sqlOf.set(proxy, sql);
    return proxy;
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => wrap(target.prepare(sql), sql);
      if (prop === "batch")
        return (stmts: D1PreparedStatement[]) => {
          for (const s of stmts) before(sqlOf.get(s) ?? "(unwrapped statement)");
          return target.batch(stmts.map((s) => real.get(s) ?? s));
        };
      if (prop === "exec")
        return (sql: string) => {
          for (const part of sql.split(";").filter((p) => p.trim() !== "")) before(part.trim());
          return target.exec(sql);
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
