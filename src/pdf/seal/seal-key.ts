import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import type { Env } from "../../env";
import { ApiError, notConfigured } from "../../lib/errors";

/** The seal's signing material, as configured: the private key and the certificate chain, signer first. */
export type SealKey = {
  privateKey: CryptoKey;
  /** the chain as parsed, the seal certificate first */
  chain: pkijs.Certificate[];
  /** the chain as DER, in the same order */
  chainDer: Uint8Array[];
  /** the seal certificate's subject common name (the signature's /Name) */
  commonName: string;
};

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** PEM blocks of one label, decoded. A value with `\n` escapes (one dotenv line) is accepted too. */
export function pemBlocks(text: string, label: string): Uint8Array[] {
  const normalized = text.replace(/\\n/g, "\n");
  const out: Uint8Array[] = [];
  for (const m of normalized.matchAll(PEM_BLOCK)) {
    if (m[1] !== label) continue;
    const b64 = m[2]!.replace(/\s+/g, "");
    out.push(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
  }
  return out;
}

const invalid = (variable: string, what: string) => new ApiError(503, `Service not configured: the ${variable} variable is not ${what}`);

const cache = new Map<string, Promise<SealKey>>();

/**
 * Throws the 503 a request needing the seal answers when it is not configured (either variable
 * missing). Cheap and synchronous: the completing submit calls it before it writes anything.
 */
export function requireSealConfig(env: Env): { privateKeyPem: string; certificatePem: string } {
  if (!env.SEAL_PRIVATE_KEY) throw notConfigured("SEAL_PRIVATE_KEY");
  if (!env.SEAL_CERTIFICATE) throw notConfigured("SEAL_CERTIFICATE");
  return { privateKeyPem: env.SEAL_PRIVATE_KEY, certificatePem: env.SEAL_CERTIFICATE };
}

/**
 * The seal key from SEAL_PRIVATE_KEY (PKCS#8 PEM; RSA, or ECDSA P-256/P-384) and SEAL_CERTIFICATE
 * (PEM: the seal certificate, then any intermediates). Parsed and imported once per isolate. A
 * missing or unusable value, or a key that does not match the certificate, is a 503 naming the variable.
 */
export function loadSealKey(env: Env): Promise<SealKey> {
  const { privateKeyPem, certificatePem } = requireSealConfig(env);
  const cacheKey = `${privateKeyPem}\u0000${certificatePem}`;
  let loaded = cache.get(cacheKey);
  if (!loaded) {
    loaded = importSealKey(privateKeyPem, certificatePem);
    cache.set(cacheKey, loaded);
    loaded.catch(() => cache.delete(cacheKey));
  }
  return loaded;
}

async function importSealKey(privateKeyPem: string, certificatePem: string): Promise<SealKey> {
  const chainDer = pemBlocks(certificatePem, "CERTIFICATE");
  if (chainDer.length === 0) throw invalid("SEAL_CERTIFICATE", "a PEM certificate (-----BEGIN CERTIFICATE-----)");
  let chain: pkijs.Certificate[];
  try {
    chain = chainDer.map((der) => pkijs.Certificate.fromBER(der));
  } catch {
    throw invalid("SEAL_CERTIFICATE", "a readable X.509 certificate");
  }
  const [pkcs8] = pemBlocks(privateKeyPem, "PRIVATE KEY");
  if (!pkcs8) throw invalid("SEAL_PRIVATE_KEY", "a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY-----)");
  const algorithm = keyAlgorithm(chain[0]!);
  if (!algorithm) throw invalid("SEAL_CERTIFICATE", "for an RSA or ECDSA (P-256, P-384) key");
  let privateKey: CryptoKey;
  let publicKey: CryptoKey;
  try {
    privateKey = await crypto.subtle.importKey("pkcs8", pkcs8, algorithm.import, false, ["sign"]);
  } catch {
    throw invalid("SEAL_PRIVATE_KEY", "a PKCS#8 private key matching the certificate's key type");
  }
  try {
    const spki = chain[0]!.subjectPublicKeyInfo.toSchema().toBER(false);
    publicKey = await crypto.subtle.importKey("spki", spki, algorithm.import, false, ["verify"]);
  } catch {
    throw invalid("SEAL_CERTIFICATE", "a certificate with a usable public key");
  }
  const probe = new TextEncoder().encode("seal key check");
  const signature = await crypto.subtle.sign(algorithm.sign, privateKey, probe);
  if (!(await crypto.subtle.verify(algorithm.sign, publicKey, signature, probe))) {
    throw invalid("SEAL_PRIVATE_KEY", "the private key of the first certificate in SEAL_CERTIFICATE");
  }
  return { privateKey, chain, chainDer, commonName: commonNameOf(chain[0]!) };
}

function keyAlgorithm(cert: pkijs.Certificate): { import: SubtleCryptoImportKeyAlgorithm; sign: SubtleCryptoSignAlgorithm } | null {
  const spki = cert.subjectPublicKeyInfo;
  const oid = spki.algorithm.algorithmId;
  if (oid === "1.2.840.113549.1.1.1") {
    return { import: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, sign: { name: "RSASSA-PKCS1-v1_5" } };
  }
  if (oid === "1.2.840.10045.2.1") {
    const curve = spki.algorithm.algorithmParams instanceof asn1js.ObjectIdentifier ? spki.algorithm.algorithmParams.valueBlock.toString() : "";
    const namedCurve = curve === "1.2.840.10045.3.1.7" ? "P-256" : curve === "1.3.132.0.34" ? "P-384" : null;
    if (!namedCurve) return null;
    return { import: { name: "ECDSA", namedCurve }, sign: { name: "ECDSA", hash: "SHA-256" } };
  }
  return null;
}

/** The certificate's subject common name, or `fallback` when it names none. */
export function commonNameOf(cert: pkijs.Certificate, fallback = "Document seal"): string {
  const cn = cert.subject.typesAndValues.find((t) => t.type === "2.5.4.3");
  const value = cn?.value.valueBlock as { value?: unknown } | undefined;
  return typeof value?.value === "string" ? value.value : fallback;
}
