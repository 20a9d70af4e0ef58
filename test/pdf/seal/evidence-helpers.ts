import { env } from "cloudflare:test";
import * as pkijs from "pkijs";
import type { Env } from "../../../src/env";
import { joinParts } from "../../../src/pdf/incremental/parts";
import { loadSealKey } from "../../../src/pdf/seal/seal-key";
import { readSignatures } from "../../../src/pdf/seal/signatures";
import { pemBlocks } from "../../../src/pdf/seal/seal-key";

/** The Worker's env with a seal issued by the OpenSSL test CA (its AIA names the OCSP stand-in) and, optionally, a TSA path. */
type TestSeal = "lt" | "outage" | "service-outage" | "crl";
const TEST_SEALS: Record<TestSeal, () => [key: string, certificate: string]> = {
  lt: () => [env.TEST_LT_SEAL_PRIVATE_KEY, env.TEST_LT_SEAL_CERTIFICATE],
  // OCSP at /ocsp-outage only: the PDF-level outage tests take that path down
  outage: () => [env.TEST_LT_OUTAGE_SEAL_PRIVATE_KEY, env.TEST_LT_OUTAGE_SEAL_CERTIFICATE],
  // OCSP at /ocsp-outage-service only: the service-level outage tests' path (files run in parallel)
  "service-outage": () => [env.TEST_LT_SERVICE_OUTAGE_SEAL_PRIVATE_KEY, env.TEST_LT_SERVICE_OUTAGE_SEAL_CERTIFICATE],
  crl: () => [env.TEST_LT_CRL_SEAL_PRIVATE_KEY, env.TEST_LT_CRL_SEAL_CERTIFICATE],
};

export function ltEnv(opts: { tsaPath?: string | null; seal?: TestSeal } = {}): Env {
  const [key, cert] = TEST_SEALS[opts.seal ?? "lt"]();
  return { ...env, SEAL_PRIVATE_KEY: key, SEAL_CERTIFICATE: cert, SEAL_TSA_URL: opts.tsaPath === null ? undefined : tsaUrl(opts.tsaPath ?? "default") } as Env;
}

export const ltSealKey = (seal: TestSeal = "lt") => loadSealKey(ltEnv({ seal }));

/** A TSA path of the OpenSSL stand-in of one's own (so an outage there touches no other test). */
export const tsaUrl = (path: string) => `${env.TEST_TSA_URL}/${path}`;

/** Takes a path of a stand-in down (`503` from then on) or brings it back: the stand-ins' admin switch. */
export async function outage(standInUrl: string, path: string, down: boolean): Promise<void> {
  const url = new URL(standInUrl);
  const res = await fetch(`${url.origin}/_admin/${down ? "down" : "up"}?path=${encodeURIComponent(path)}`, { method: "POST" });
  if (!res.ok) throw new Error(`stand-in admin answered ${res.status}`);
  await res.arrayBuffer();
}

export const caCertificate = () => pkijs.Certificate.fromBER(pemBlocks(env.TEST_PKI_CA_CERTIFICATE, "CERTIFICATE")[0]!);

/** Every signature of the file, checked independently of the code that made it: pkijs over its byte ranges read from the file. */
export async function checkSignatures(parts: Uint8Array[]) {
  const file = joinParts(parts);
  const out = [];
  for (const sig of await readSignatures(parts)) {
    const [a, b, c, d] = sig.byteRange;
    const signed = new Uint8Array(b + d);
    signed.set(file.subarray(a, a + b), 0);
    signed.set(file.subarray(c, c + d), b);
    const cms = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(sig.der).content });
    let valid = false;
    let imprintMatches: boolean | null = null;
    let genTime: Date | null = null;
    if (sig.subFilter === "ETSI.RFC3161") {
      const info = pkijs.TSTInfo.fromBER(cms.encapContentInfo.eContent!.getValue());
      genTime = info.genTime;
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", signed));
      imprintMatches = new Uint8Array(info.messageImprint.hashedMessage.valueBlock.valueHexView).every((x, i) => x === digest[i]) && info.messageImprint.hashedMessage.valueBlock.valueHexView.byteLength === 32;
      // the token's signature over its TSTInfo, the TSTInfo's imprint over the byte ranges (pkijs checks
      // both when given the data), and the TSA certificate's chain up to the test CA
      valid = await cms.verify({ signer: 0, data: signed.buffer, checkChain: true, trustedCerts: [caCertificate()] }).catch(() => false);
    } else {
      valid = await cms.verify({ signer: 0, data: signed.buffer, checkChain: false }).catch(() => false);
    }
    out.push({ subFilter: sig.subFilter, type: sig.type, valid, imprintMatches, genTime, covers: sig.coveredLength, wholeFile: sig.coveredLength === file.byteLength && a === 0 });
  }
  return out;
}
