// A local stand-in for Twilio's Programmable Messaging REST API
// (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource), started once
// by vitest (Node side) on a random loopback port and handed to the tests as `inject("twilioPort")`.
// Tests set TWILIO_API_BASE to `http://127.0.0.1:<port>/<behaviour>/<uuid>`, so the provider posts to
// `…/<behaviour>/<uuid>/2010-04-01/Accounts/<sid>/Messages.json` and each test's records stay apart.
// Behaviours:
//
//   /ok/...        201 with the message resource ({ sid: "SM…", status: "queued", to, from, body, … })
//   /invalid-to/.. 400 { code: 21211, message: "Invalid 'To' Phone Number: …", status: 400 }
//   /fail/...      500 with an HTML page (as an outage answers)
//
// As Twilio does, whatever the behaviour: Basic auth other than TWILIO_TEST_SID:TWILIO_TEST_TOKEN, or an
// account SID in the path other than the one authenticated, is 401 { code: 20003 }; a form body without
// To, From and Body is 400 { code: 21604 / 21603 / 21602 }. Every request (method, path, headers, parsed
// form body) is recorded; GET /_records?base=/<behaviour>/<uuid> returns them in arrival order.
import { randomBytes } from "node:crypto";
import { startRecordingServer } from "./recording-server.mjs";

export const TWILIO_TEST_SID = "AC00000000000000000000000000000001";
export const TWILIO_TEST_TOKEN = "test-twilio-auth-token";

/** @param {import("vitest/node").TestProject} project */
export default async function setup(project) {
  const server = await startRecordingServer({
    param: "base",
    keyOf: (path) => path.replace(/\/2010-04-01\/.*$/, ""),
    bodyOf: (raw) => Object.fromEntries(new URLSearchParams(raw)),
    answer: ({ key, path, req, res, body }) => answer({ base: key, path, req, res, body }),
  });
  project.provide("twilioPort", server.port);
  return server.close;
}

const json = (res, status, body) => res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
const twilioError = (res, status, code, message) => json(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

function answer({ base, path, req, res, body }) {
  const m = /\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(path);
  if (req.method !== "POST" || !m) return twilioError(res, 404, 20404, "The requested resource was not found");
  const expected = `Basic ${Buffer.from(`${TWILIO_TEST_SID}:${TWILIO_TEST_TOKEN}`).toString("base64")}`;
  if (req.headers.authorization !== expected || decodeURIComponent(m[1]) !== TWILIO_TEST_SID) return twilioError(res, 401, 20003, "Authenticate");
  if (!String(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) return twilioError(res, 400, 20001, "Unsupported content type");
  if (!body.To) return twilioError(res, 400, 21604, "A 'To' phone number is required.");
  if (!body.From) return twilioError(res, 400, 21603, "A 'From' phone number is required.");
  if (!body.Body) return twilioError(res, 400, 21602, "Message body is required.");
  const [, behaviour] = base.split("/");
  switch (behaviour) {
    case "ok":
      return json(res, 201, {
        sid: `SM${randomBytes(16).toString("hex")}`,
        account_sid: TWILIO_TEST_SID,
        to: body.To,
        from: body.From,
        body: body.Body,
        status: "queued",
        num_segments: "1",
        direction: "outbound-api",
        api_version: "2010-04-01",
        date_created: new Date().toUTCString(),
      });
    case "invalid-to":
      return twilioError(res, 400, 21211, `Invalid 'To' Phone Number: ${body.To}`);
    case "fail":
      return res.writeHead(500, { "content-type": "text/html" }).end("<html><body>Internal Server Error</body></html>");
    default:
      return twilioError(res, 404, 20404, "unknown behaviour");
  }
}
