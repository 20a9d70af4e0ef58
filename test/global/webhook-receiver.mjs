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
import { startRecordingServer } from "./recording-server.mjs";

/** @param {import("vitest/node").TestProject} project */
export default async function setup(project) {
  const server = await startRecordingServer({ param: "path", keyOf: (path) => path, answer: ({ path, nth, req, res, hold }) => answer(path, nth, req, res, hold) });
  project.provide("receiverPort", server.port);
  return server.close;
}

function answer(path, nth, req, res, hold) {
  const [, behaviour, arg] = path.split("/");
  switch (behaviour) {
    case "ok":
      return res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    case "fail":
      return res.writeHead(500, { "content-type": "text/plain" }).end(`receiver failure ${"x".repeat(5000)}`);
    case "hang":
      return hold(res);
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
