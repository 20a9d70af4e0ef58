// PAdES evidence levels for `npm run dev` (docs/evidence.md): OpenSSL's TSA (`openssl ts -reply`) and OCSP
// responder (`openssl ocsp`) behind the test stand-ins (test/global/tsa-stand-in.mjs, ocsp-stand-in.mjs),
// over a throwaway CA made with the `openssl` CLI (scripts/lib/test-pki.mjs), so a local completion
// reaches B-LTA. Without `openssl` on the PATH nothing here runs and local seals stay B-B.
//   - dev-setup.mjs (predev) calls ensureDevEvidence(): makes the PKI once under .wrangler/dev-pki
//     (git-ignored, kept across runs) and writes its seal and SEAL_TSA_URL into .dev.vars, unless the
//     developer put a seal of their own there.
//   - dev.mjs (`npm run dev`) calls startDevEvidence(): starts the two stand-ins on the PKI's ports
//     beside wrangler dev and stops them with it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { makeTestPki, readTestPki } from "./test-pki.mjs";

/** Ports the dev stand-ins listen on (the OCSP one is written into the seal certificate's AIA). */
export const DEV_TSA_PORT = Number(process.env.DEV_TSA_PORT) || 8790;
export const DEV_OCSP_PORT = Number(process.env.DEV_OCSP_PORT) || 8791;

export const devPkiDir = (root) => join(root, ".wrangler", "dev-pki");
export const devTsaUrl = () => `http://127.0.0.1:${DEV_TSA_PORT}/tsa`;

export function hasOpenssl() {
  const res = spawnSync("openssl", ["version"], { encoding: "utf8" });
  return !res.error && res.status === 0;
}

/** The dev PKI, made on first use (or again when the OCSP port changed: the port is in its certificates). */
export function devPki(root) {
  const dir = devPkiDir(root);
  const ocspBase = `http://127.0.0.1:${DEV_OCSP_PORT}`;
  if (existsSync(join(dir, "pki.json"))) {
    const pki = readTestPki(dir);
    if (pki.ocspBase === ocspBase) return { pki, created: false };
  }
  mkdirSync(dir, { recursive: true });
  return { pki: makeTestPki({ ocspBase, dir }), created: true };
}

/** The seal .dev.vars should carry, and whether the one there may be replaced (a generated one: ours or the self-signed default). */
export function devEvidenceVars(root) {
  if (!hasOpenssl()) return null;
  const { pki, created } = devPki(root);
  return {
    created,
    vars: { SEAL_PRIVATE_KEY: pki.seal.privateKeyPem, SEAL_CERTIFICATE: pki.seal.certificatePem, SEAL_TSA_URL: devTsaUrl() },
  };
}

/**
 * Starts the TSA and OCSP stand-ins for wrangler dev; null (and a note) without openssl or a dev PKI.
 * A port already taken (another `npm run dev`) is reported, not fatal: completions then stay below
 * the target and say so, and the raising job retries once a responder answers.
 */
export async function startDevEvidence(root) {
  const dir = devPkiDir(root);
  if (!hasOpenssl() || !existsSync(join(dir, "pki.json"))) {
    console.log("dev: openssl not found (or no dev PKI): seals stay PAdES B-B (see docs/evidence.md)");
    return null;
  }
  const { startTsaStandIn } = await import("../../test/global/tsa-stand-in.mjs");
  const { startOcspStandIn } = await import("../../test/global/ocsp-stand-in.mjs");
  const started = [];
  for (const [name, start, port] of [["TSA", startTsaStandIn, DEV_TSA_PORT], ["OCSP responder", startOcspStandIn, DEV_OCSP_PORT]]) {
    try {
      started.push(await start({ pkiDir: dir, port }));
    } catch (err) {
      console.warn(`dev: the OpenSSL ${name} could not listen on 127.0.0.1:${port} (${err.code ?? err.message}); seals stay below B-LTA until it answers`);
    }
  }
  if (started.length === 2) console.log(`dev: OpenSSL TSA on ${devTsaUrl()} and OCSP responder on http://127.0.0.1:${DEV_OCSP_PORT}: local seals reach PAdES B-LTA`);
  return { close: () => Promise.all(started.map((s) => s.close?.())) };
}

/**
 * Whether a seal certificate (PEM, `\n` escapes allowed) is one this tooling generated: the
 * self-signed development seal (scripts/lib/seal-cert.mjs) or a dev-PKI seal. Only those are replaced;
 * a developer's own seal in .dev.vars is kept.
 */
export function isGeneratedDevSeal(certificatePem) {
  if (!certificatePem) return true;
  const res = spawnSync("openssl", ["x509", "-noout", "-subject"], { input: certificatePem.replace(/\\n/g, "\n"), encoding: "utf8" });
  return res.status === 0 && /esign-vault (development seal|test LT seal)/.test(res.stdout);
}
