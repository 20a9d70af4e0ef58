// A real HTTP receiver for webhook tests, started once by vitest (Node side; plain JS because the
// project's type-check targets the Workers runtime, not Node) on a random loopback port and handed to
// the tests as `inject("receiverPort")`. The first path segment picks the behaviour; tests use a
// fresh path each (`/ok/<uuid>`) so their records never mix:
//
//   /ok/...        200 "ok"
//   /fail/...      500 with a body longer than the service keeps (truncation)
//   /hang/...      never answers (the service's timeout must fire)
//   /redirect/...  302 to /ok/... (must not be followed)
//   /close/...     destroys the socket without an answer
//   /flaky/...     fails every other request on that path (500, 200, 500, ...)
//   /fail-first/<n>/...  503 for the first n requests on that path, then 200
//
// Every request (method, path, headers, raw body, receipt time) is recorded, whatever the answer;
// GET /_records?path=<path> returns them in arrival order.
import { createServer } from "node:http";

const HANG_MS = 60_000;

/** @param {import("vitest/node").TestProject} project */
export default async function setup(project) {
  /** @type {Map<string, object[]>} */
  const records = new Map();
  const hanging = new Set();

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/_records") {
      const list = records.get(url.searchParams.get("path") ?? "") ?? [];
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(list));
      return;
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const list = records.get(url.pathname) ?? [];
      records.set(url.pathname, list);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v)]));
      list.push({ method: req.method, path: url.pathname, headers, body: Buffer.concat(chunks).toString("utf8"), received_at: Date.now() });
      answer(url.pathname, list.length, req, res, hanging);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  project.provide("receiverPort", server.address().port);

  return async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
}

function answer(path, nth, req, res, hanging) {
  const [, behaviour, arg] = path.split("/");
  switch (behaviour) {
    case "ok":
      return res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    case "fail":
      return res.writeHead(500, { "content-type": "text/plain" }).end(`receiver failure ${"x".repeat(5000)}`);
    case "hang": {
      hanging.add(res);
      const timer = setTimeout(() => res.destroy(), HANG_MS);
      res.on("close", () => {
        clearTimeout(timer);
        hanging.delete(res);
      });
      return;
    }
    case "redirect":
      return res.writeHead(302, { location: path.replace("/redirect/", "/ok/") }).end();
    case "close":
      return req.socket.destroy();
    case "flaky":
      return nth % 2 === 1 ? res.writeHead(500).end("flaky: failing this one") : res.writeHead(200).end("ok");
    case "fail-first":
      return nth <= Number(arg) ? res.writeHead(503).end("not yet") : res.writeHead(200).end("ok");
    default:
      return res.writeHead(404).end("unknown behaviour");
  }
}
