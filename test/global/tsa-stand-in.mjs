// A timestamp authority (RFC 3161) for the evidence-level tests and `npm run dev`: a small loopback HTTP
// wrapper around OpenSSL's own `openssl ts -reply`, with the throwaway CA's TSA certificate
// (scripts/lib/test-pki.mjs). The answers are OpenSSL's, not ours.
//
// The TSA's side:
//   POST <any path>  application/timestamp-query -> application/timestamp-reply (OpenSSL's answer,
//                    including its refusals, e.g. for an unsupported digest).
// The tests' side (never part of a TSA):
//   POST /_admin/down?path=<path>  from now on POSTs to <path> (and below it) answer 503, as a TSA in
//                                  an outage would; /_admin/up?path=<path> brings it back. Tests use
//                                  their own path (`${TEST_TSA_URL}/<test-name>`), so an outage in one
//                                  test never touches another running beside it.
//   GET  /_stats?path=<path>       { granted, refused } for that path.
// Started by vitest (globalSetup) on the port vitest.config.ts chose (TSA_STAND_IN_PORT) over the PKI
// it made (TEST_PKI_DIR), and by scripts/interop/seal-sample.mjs.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { readTestPki } from "../../scripts/lib/test-pki.mjs";

const run = (args) => new Promise((resolve, reject) => execFile("openssl", args, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))));

/** Paths taken down by the tests; a request is down when its path is one of them or below one. */
export function outageSwitch() {
  const down = new Set();
  const norm = (path) => path.replace(/\/+$/, "") || "/";
  return {
    isDown: (path) => [...down].some((d) => norm(path) === d || norm(path).startsWith(d === "/" ? "/" : `${d}/`)),
    /** handles /_admin/down|up?path=…; true when it was an admin request */
    admin(url, res) {
      const m = /^\/_admin\/(down|up)$/.exec(url.pathname);
      if (!m) return false;
      const path = norm(url.searchParams.get("path") ?? "/");
      if (m[1] === "down") down.add(path);
      else down.delete(path);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ path, down: m[1] === "down" }));
      return true;
    },
  };
}

export const readBody = (req) =>
  new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

/** @param {{ pkiDir: string, port?: number }} opts */
export async function startTsaStandIn({ pkiDir, port = 0 }) {
  const pki = readTestPki(pkiDir);
  const work = mkdtempSync(join(pkiDir, "tsa-stand-in-")); // inside the PKI's directory: removed with it
  const outage = outageSwitch();
  const stats = new Map();
  const statsOf = (path) => stats.get(path) ?? stats.set(path, { granted: 0, refused: 0 }).get(path);
  let queue = Promise.resolve(); // one openssl at a time: it keeps the serial number in a file
  let n = 0;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    try {
      if (outage.admin(url, res)) return;
      if (req.method === "GET" && url.pathname === "/_stats") {
        return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(statsOf(url.searchParams.get("path") ?? "/")));
      }
      if (req.method !== "POST") return res.writeHead(405).end();
      const body = await readBody(req);
      const stat = statsOf(url.pathname.replace(/\/+$/, "") || "/");
      if (outage.isDown(url.pathname)) {
        stat.refused++;
        return res.writeHead(503, { "content-type": "text/plain" }).end("timestamp authority unavailable (test outage)");
      }
      const id = ++n;
      const query = join(work, `${id}.tsq`);
      const reply = join(work, `${id}.tsr`);
      writeFileSync(query, body);
      const done = queue.then(() => run(["ts", "-reply", "-config", pki.paths.tsaConfig, "-queryfile", query, "-out", reply]));
      queue = done.catch(() => {});
      await done;
      const answer = readFileSync(reply);
      rmSync(query, { force: true });
      rmSync(reply, { force: true });
      stat.granted++;
      res.writeHead(200, { "content-type": "application/timestamp-reply" }).end(answer);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
    }
  });
  return listenStandIn(server, port, work, "/tsa");
}

/** Listens on 127.0.0.1:`port`; `close` stops the server and removes its work folder. (The OCSP stand-in's too.) */
export async function listenStandIn(server, port, work, path = "") {
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actual = server.address().port;
  return {
    port: actual,
    url: `http://127.0.0.1:${actual}${path}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => {
          rmSync(work, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}

/** A vitest global setup starting a stand-in on the port vitest.config.ts chose (`portVariable`), over its test PKI. */
export async function setupStandIn(project, start, portVariable, provided) {
  const port = Number(process.env[portVariable]);
  const pkiDir = process.env.TEST_PKI_DIR;
  if (!port || !pkiDir) throw new Error(`${portVariable} / TEST_PKI_DIR are not set: vitest.config.ts chooses them`);
  const standIn = await start({ pkiDir, port });
  project.provide(provided, standIn.port);
  return standIn.close;
}

export default (project) => setupStandIn(project, startTsaStandIn, "TSA_STAND_IN_PORT", "tsaPort");
