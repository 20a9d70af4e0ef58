// A self-signed seal certificate for development and tests: an RSA-2048 key (PKCS#8 PEM) and an X.509
// certificate (PEM) built with pkijs over Node's WebCrypto. Node 20 has no X.509 generator and
// `openssl` is not guaranteed on a developer's machine. Used by scripts/dev-setup.mjs (written to
// .dev.vars), vitest.config.ts (a fresh pair per test run, never committed) and the pdfsig check.
// Such a certificate is trusted by nobody: production sets SEAL_PRIVATE_KEY / SEAL_CERTIFICATE from
// a real CA (see docs/evidence.md).
import { webcrypto } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

const crypto = webcrypto;
pkijs.setEngine("node-webcrypto", new pkijs.CryptoEngine({ name: "node-webcrypto", crypto }));

const pem = (label, der) => {
  const b64 = Buffer.from(der).toString("base64").replace(/.{64}/g, "$&\n").replace(/\n$/, "");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
};

/**
 * @param {{ commonName?: string, days?: number, algorithm?: "RSA" | "ECDSA" }} [options]
 * @returns {Promise<{ privateKeyPem: string, certificatePem: string }>}
 */
export async function generateSealCertificate(options = {}) {
  const commonName = options.commonName ?? "esign-vault development seal (self-signed, not trusted)";
  const days = options.days ?? 3650;
  const keys = await crypto.subtle.generateKey(
    options.algorithm === "ECDSA"
      ? { name: "ECDSA", namedCurve: "P-256" }
      : { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  );
  const cert = new pkijs.Certificate();
  cert.version = 2;
  cert.serialNumber = new asn1js.Integer({ valueHex: crypto.getRandomValues(new Uint8Array(16)).map((b, i) => (i === 0 ? b & 0x7f : b)).buffer });
  const name = () => new pkijs.AttributeTypeAndValue({ type: "2.5.4.3", value: new asn1js.Utf8String({ value: commonName }) });
  cert.subject.typesAndValues.push(name());
  cert.issuer.typesAndValues.push(name());
  const notBefore = new Date(Date.now() - 24 * 3600 * 1000);
  cert.notBefore.value = notBefore;
  cert.notAfter.value = new Date(notBefore.getTime() + days * 24 * 3600 * 1000);
  await cert.subjectPublicKeyInfo.importKey(keys.publicKey);

  // digitalSignature + nonRepudiation (contentCommitment): a document seal.
  const keyUsageBits = new ArrayBuffer(1);
  new Uint8Array(keyUsageBits)[0] = 0b11000000;
  const skid = new Uint8Array(await crypto.subtle.digest("SHA-1", cert.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView));
  cert.extensions = [
    new pkijs.Extension({ extnID: "2.5.29.19", critical: true, extnValue: new pkijs.BasicConstraints({ cA: false }).toSchema().toBER(false) }),
    new pkijs.Extension({ extnID: "2.5.29.15", critical: true, extnValue: new asn1js.BitString({ valueHex: keyUsageBits, unusedBits: 6 }).toBER(false) }),
    new pkijs.Extension({ extnID: "2.5.29.14", extnValue: new asn1js.OctetString({ valueHex: skid }).toBER(false) }),
  ];
  await cert.sign(keys.privateKey, "SHA-256");

  const pkcs8 = await crypto.subtle.exportKey("pkcs8", keys.privateKey);
  return { privateKeyPem: pem("PRIVATE KEY", pkcs8), certificatePem: pem("CERTIFICATE", cert.toSchema(true).toBER(false)) };
}

/** A PEM as one dotenv line: newlines escaped as `\n` inside double quotes (the Worker accepts both forms). */
export const pemForDotenv = (value) => `"${value.trim().replace(/\n/g, "\\n")}"`;
