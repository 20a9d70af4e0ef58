// An OCSP responder (RFC 6960) and CRL server for the evidence-level tests and `npm run dev`: a small
// loopback HTTP wrapper that hands each request to OpenSSL's own responder,
// `openssl ocsp -index … -CA … -rsigner … -rkey … -reqin … -respout …`, answering from the throwaway
// CA's database (scripts/lib/test-pki.mjs) with its delegated responder certificate (EKU OCSPSigning).
//
// The responder's side:
//   POST <any path>          application/ocsp-request -> application/ocsp-response (OpenSSL's answer)
//   GET  <path>/<base64 req>  the same, as RFC 6960 A.1's GET form
//   GET  /ca.crl             the CA's CRL (DER, made by `openssl ca -gencrl`)
// The tests' side: POST /_admin/down?path=<path> and /_admin/up?path=<path> as in tsa-stand-in.mjs
// (a path down answers 503). The seals' AIA name `/ocsp`; the "outage" seal names `/ocsp-outage`,
// the path the OCSP outage tests take down.
// Started by vitest (globalSetup) on the port vitest.config.ts chose (OCSP_STAND_IN_PORT: it is written
// into the certificates) over the PKI it made (TEST_PKI_DIR), and by scripts/interop/seal-sample.mjs.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { readTestPki } from "../../scripts/lib/test-pki.mjs";
import { listenStandIn, outageSwitch, readBody, setupStandIn } from "./tsa-stand-in.mjs";

const run = (args) => new Promise((resolve, reject) => execFile("openssl", args, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))));

/** @param {{ pkiDir: string, port?: number }} opts */
export async function startOcspStandIn({ pkiDir, port = 0 }) {
  const pki = readTestPki(pkiDir);
  const work = mkdtempSync(join(pkiDir, "ocsp-stand-in-")); // inside the PKI's directory: removed with it
  const outage = outageSwitch();
  let n = 0;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    try {
      if (outage.admin(url, res)) return;
      if (outage.isDown(url.pathname)) return res.writeHead(503, { "content-type": "text/plain" }).end("responder unavailable (test outage)");
      if (req.method === "GET" && url.pathname === "/ca.crl") {
        return res.writeHead(200, { "content-type": "application/pkix-crl" }).end(readFileSync(pki.paths.crlDer));
      }
      let der;
      if (req.method === "POST") der = await readBody(req);
      else if (req.method === "GET") der = Buffer.from(decodeURIComponent(url.pathname.split("/").pop() ?? ""), "base64");
      else return res.writeHead(405).end();
      const id = ++n;
      const reqFile = join(work, `${id}.req`);
      const respFile = join(work, `${id}.resp`);
      writeFileSync(reqFile, der);
      await run(["ocsp", "-index", pki.paths.index, "-CA", pki.paths.ca, "-rsigner", pki.paths.ocspCert, "-rkey", pki.paths.ocspKey, "-reqin", reqFile, "-respout", respFile, "-ndays", "1"]);
      const answer = readFileSync(respFile);
      rmSync(reqFile, { force: true });
      rmSync(respFile, { force: true });
      res.writeHead(200, { "content-type": "application/ocsp-response" }).end(answer);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
    }
  });
  return listenStandIn(server, port, work);
}

export default (project) => setupStandIn(project, startOcspStandIn, "OCSP_STAND_IN_PORT", "ocspPort");
