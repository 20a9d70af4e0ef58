// The loopback HTTP server under the suite's stand-ins (webhook receivers, the email provider): it
// records every request under a key (method, path, headers, body, receipt time), serves them back at
// GET /_records?<param>=<key> in arrival order, and lets the stand-in answer. `hold(res)` keeps an
// answer hanging (cut after a minute, or at teardown) for timeout tests.
import { createServer } from "node:http";

const HANG_MS = 60_000;

/**
 * @param {{
 *   param: string,
 *   keyOf: (path: string) => string,
 *   bodyOf?: (raw: string) => unknown,
 *   answer: (a: { key: string, path: string, nth: number, req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse, body: unknown, hold: (res: import("node:http").ServerResponse) => void }) => void,
 * }} opts
 */
export async function startRecordingServer({ param, keyOf, bodyOf = (raw) => raw, answer }) {
  /** @type {Map<string, object[]>} */
  const records = new Map();
  const hanging = new Set();
  const hold = (res) => {
    hanging.add(res);
    const timer = setTimeout(() => res.destroy(), HANG_MS);
    res.on("close", () => {
      clearTimeout(timer);
      hanging.delete(res);
    });
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/_records") {
      const list = records.get(url.searchParams.get(param) ?? "") ?? [];
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(list));
      return;
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const key = keyOf(url.pathname);
      const list = records.get(key) ?? [];
      records.set(key, list);
      const body = bodyOf(Buffer.concat(chunks).toString("utf8"));
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v)]));
      list.push({ method: req.method, path: url.pathname, headers, body, received_at: Date.now() });
      answer({ key, path: url.pathname, nth: list.length, req, res, body, hold });
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));

  return {
    port: server.address().port,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
