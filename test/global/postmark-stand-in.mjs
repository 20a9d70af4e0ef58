// A local stand-in for Postmark's Email API (https://postmarkapp.com/developer/api/email-api), started
// once by vitest (Node side, like webhook-receiver.mjs) on a random loopback port and handed to the
// tests as `inject("postmarkPort")`. Tests set POSTMARK_API_BASE to
// `http://127.0.0.1:<port>/<behaviour>/<uuid>`, so the transport posts to `…/<behaviour>/<uuid>/email`
// and each test's records stay apart. Behaviours:
//
//   /ok/...             200 { To, SubmittedAt, MessageID, ErrorCode: 0, Message: "OK" }
//   /invalid-email/...  422 { ErrorCode: 300, Message: "Invalid 'To' address: …" }
//   /inactive/...       422 { ErrorCode: 406, Message: "You tried to send to recipient(s) that have been marked as inactive. …" }
//   /fail/...           500 with an HTML page (as an outage answers), longer than the transport reads
//   /fail-first/<n>/... 500 for the first n requests on that base, then as /ok
//   /hang/...           never answers (the transport's timeout must fire)
//   /close/...          destroys the socket without an answer (a network error)
//
// As Postmark does, whatever the behaviour: a missing or wrong X-Postmark-Server-Token is 401
// { ErrorCode: 10 }; a body that is not JSON, or lacks From / To / a body, is 422 { ErrorCode: 300 }.
// Every request (method, path, headers, parsed body) is recorded; GET /_records?base=/<behaviour>/<uuid>
// returns them in arrival order.
import { randomUUID } from "node:crypto";
import { startRecordingServer } from "./recording-server.mjs";

export const POSTMARK_TEST_TOKEN = "test-postmark-server-token";

/** @param {import("vitest/node").TestProject} project */
export default async function setup(project) {
  const server = await startRecordingServer({
    param: "base",
    keyOf: (path) => path.replace(/\/email$/, ""),
    bodyOf: (raw) => {
      try {
        return JSON.parse(raw);
      } catch {
        return null; // answered 422 below, as Postmark does
      }
    },
    answer: ({ key, path, nth, req, res, body, hold }) => answer({ base: key, path, nth, req, res, body, hold }),
  });
  project.provide("postmarkPort", server.port);
  return server.close;
}

const json = (res, status, body) => res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));

function answer({ base, path, nth, req, res, body, hold }) {
  if (req.method !== "POST" || !path.endsWith("/email")) return json(res, 404, { ErrorCode: 404, Message: "Not found" });
  if (req.headers["x-postmark-server-token"] !== POSTMARK_TEST_TOKEN) {
    return json(res, 401, { ErrorCode: 10, Message: "The Server Token you provided in the X-Postmark-Server-Token request header was invalid. Please verify that you are using a valid token." });
  }
  if (!body || typeof body !== "object") return json(res, 422, { ErrorCode: 402, Message: "Received invalid JSON input." });
  if (!body.From || !body.To || !(body.TextBody || body.HtmlBody)) {
    return json(res, 422, { ErrorCode: 300, Message: "Invalid email request: From, To and TextBody or HtmlBody are required." });
  }
  const [, behaviour, arg] = base.split("/");
  switch (behaviour) {
    case "ok":
      return ok(res, body);
    case "invalid-email":
      return json(res, 422, { ErrorCode: 300, Message: `Invalid 'To' address: '${body.To}'.` });
    case "inactive":
      return json(res, 422, { ErrorCode: 406, Message: "You tried to send to recipient(s) that have been marked as inactive. Found inactive addresses: x@example.com. Inactive recipients are ones that have generated a hard bounce, a spam complaint, or a manual suppression." });
    case "fail":
      return res.writeHead(500, { "content-type": "text/html" }).end(`<html><body>Internal Server Error${" ".repeat(20_000)}</body></html>`);
    case "fail-first":
      return nth <= Number(arg) ? res.writeHead(500, { "content-type": "text/html" }).end("<html><body>Internal Server Error</body></html>") : ok(res, body);
    case "close":
      return req.socket.destroy();
    case "hang":
      return hold(res);
    default:
      return json(res, 404, { ErrorCode: 404, Message: "unknown behaviour" });
  }
}

function ok(res, body) {
  return json(res, 200, { To: body.To, SubmittedAt: new Date().toISOString(), MessageID: randomUUID(), ErrorCode: 0, Message: "OK" });
}
