// The auditor's machine, for the Workers-runtime suite: tests there cannot start a process, so this
// loopback server (Node side, started by vitest's global setup) does what an auditor does with an
// evidence bundle: unzip it into a fresh folder and run `node verify.mjs <args>` in it, with this
// machine's Node. It also makes what an attacker would: an RFC 3161 token from another timestamp
// authority ("CN=Evil TSA", a self-signed TSA certificate made with openssl on first use), to swap
// into a bundle.
//
//   POST /run?arg=<a>&arg=<b>…[&zip=<name>]  body: the bundle's ZIP -> { code, stdout, stderr } of `node verify.mjs <a> <b> …`
//     (with zip=<name>, the ZIP is also written, unopened, as <name> beside its members)
//   POST /evil-tsa?digest=<hex> -> the Evil TSA's TimeStampToken (DER) over that SHA-256 (openssl ts -reply -token_out)
//
// Handed to the tests as `inject("nodeVerifierPort")`.
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { readBody } from "./tsa-stand-in.mjs";

const openssl = (args) => new Promise((resolve, reject) => execFile("openssl", args, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))));

/** `node verify.mjs …args` in `dir`: its exit code and what it printed. */
function runVerifier(dir, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["verify.mjs", ...args], { cwd: dir, timeout: 60_000 });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code, signal) => resolve({ code: code ?? `signal ${signal}`, stdout, stderr }));
  });
}

/** A TSA nobody pinned: its own self-signed certificate, made once. */
async function evilTsa(work) {
  const p = (name) => join(work, name);
  await openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", p("evil.key")]);
  await openssl(["req", "-new", "-x509", "-key", p("evil.key"), "-out", p("evil.pem"), "-days", "30", "-subj", "/CN=Evil TSA", "-sha256",
    "-addext", "basicConstraints=critical,CA:false", "-addext", "keyUsage=critical,digitalSignature,nonRepudiation", "-addext", "extendedKeyUsage=critical,timeStamping"]);
  writeFileSync(p("serial"), "01\n");
  writeFileSync(
    p("evil.cnf"),
    `[ tsa ]
default_tsa = evil
[ evil ]
dir = ${work}
serial = ${p("serial")}
crypto_device = builtin
signer_cert = ${p("evil.pem")}
signer_key = ${p("evil.key")}
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.666.1
digests = sha256
accuracy = secs:1
ordering = yes
tsa_name = no
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`,
  );
  let queue = Promise.resolve();
  let n = 0;
  /** The Evil TSA's token over a SHA-256 (hex). */
  return (digest) => {
    const id = ++n;
    const job = queue.then(async () => {
      await openssl(["ts", "-query", "-digest", digest, "-sha256", "-cert", "-out", p(`${id}.tsq`)]);
      await openssl(["ts", "-reply", "-config", p("evil.cnf"), "-queryfile", p(`${id}.tsq`), "-token_out", "-out", p(`${id}.tok`)]);
      return readFileSync(p(`${id}.tok`));
    });
    queue = job.catch(() => {});
    return job;
  };
}

export async function startNodeVerifier() {
  const work = mkdtempSync(join(tmpdir(), "node-verifier-"));
  let evil = null;
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    try {
      if (req.method === "POST" && url.pathname === "/run") {
        const dir = mkdtempSync(join(work, "bundle-"));
        const zip = new Uint8Array(await readBody(req));
        for (const [name, bytes] of Object.entries(unzipSync(zip))) writeFileSync(join(dir, name), bytes);
        // ?zip=<name>: the ZIP itself kept beside its members, for `verify.mjs --audit-export <name>`
        const keep = url.searchParams.get("zip");
        if (keep && /^[\w.-]+\.zip$/.test(keep)) writeFileSync(join(dir, keep), zip);
        const outcome = await runVerifier(dir, url.searchParams.getAll("arg"));
        rmSync(dir, { recursive: true, force: true });
        return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(outcome));
      }
      if (req.method === "POST" && url.pathname === "/evil-tsa") {
        const digest = url.searchParams.get("digest") ?? "";
        if (!/^[0-9a-f]{64}$/.test(digest)) return res.writeHead(400).end("digest: 64 hex digits");
        evil ??= evilTsa(work);
        const token = await (await evil)(digest);
        return res.writeHead(200, { "content-type": "application/timestamp-token" }).end(token);
      }
      res.writeHead(404).end();
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" }).end(String(err));
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: server.address().port,
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

/** @param {import("vitest/node").TestProject} project */
export default async function setup(project) {
  const verifier = await startNodeVerifier();
  project.provide("nodeVerifierPort", verifier.port);
  return verifier.close;
}
