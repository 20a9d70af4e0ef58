// A throwaway PKI made with the `openssl` CLI, for the evidence-level tests (PAdES B-T / B-LT / B-LTA),
// `npm run dev` and the pdfsig interop check: a root CA, document-seal certificates issued by it whose
// AIA names an OCSP responder (and a CRL distribution point) on 127.0.0.1, a TSA certificate (EKU
// timeStamping, critical), an OCSP responder certificate (EKU OCSPSigning), and the openssl
// configuration files the stand-ins run `openssl ts -reply` / `openssl ocsp` / `openssl ca -gencrl` with.
// Everything is written to a temporary directory and trusted by nobody. Only the openssl CLI is used
// (child_process.execFileSync): no DER is made by hand here.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const openssl = (args, opts = {}) => execFileSync("openssl", args, { stdio: ["ignore", "pipe", "pipe"], ...opts });

/**
 * @param {{ ocspBase: string, crlBase?: string, dir?: string }} options
 *   ocspBase: the OCSP responder's URL (e.g. `http://127.0.0.1:4567`), named in the AIA of the seals;
 *   crlBase: where the CRL is served (`<crlBase>/ca.crl`, named as CRL DP), defaults to ocspBase.
 * @returns {ReturnType<typeof readTestPki>}
 */
export function makeTestPki(options) {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "test-pki-"));
  const ocspBase = options.ocspBase.replace(/\/$/, "");
  const crlBase = (options.crlBase ?? ocspBase).replace(/\/$/, "");
  const p = (name) => join(dir, name);
  writeFileSync(p("index.txt"), "");
  writeFileSync(p("serial"), "1000\n");
  writeFileSync(p("crlnumber"), "1000\n");
  writeFileSync(p("tsaserial"), "01\n");
  // The CA (openssl ca: it keeps index.txt, which the OCSP responder answers from) and the extensions
  // of each certificate it issues. Seals: `<ocspBase>/ocsp` (the responder: any path is served) plus
  // variants with their own path, so a test can take one responder path down without touching others.
  writeFileSync(
    p("ca.cnf"),
    `[ ca ]
default_ca = test_ca
[ test_ca ]
dir = ${dir}
database = ${p("index.txt")}
serial = ${p("serial")}
crlnumber = ${p("crlnumber")}
new_certs_dir = ${dir}
certificate = ${p("ca.pem")}
private_key = ${p("ca.key")}
default_md = sha256
default_days = 3650
default_crl_days = 30
policy = any_policy
unique_subject = no
copy_extensions = none
[ any_policy ]
commonName = supplied
organizationName = optional
[ req ]
distinguished_name = req_dn
prompt = no
[ req_dn ]
CN = unused
[ root_ext ]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[ seal_ext ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
authorityInfoAccess = OCSP;URI:${ocspBase}/ocsp
crlDistributionPoints = URI:${crlBase}/ca.crl
[ seal_outage_ext ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
authorityInfoAccess = OCSP;URI:${ocspBase}/ocsp-outage
[ seal_outage_service_ext ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
authorityInfoAccess = OCSP;URI:${ocspBase}/ocsp-outage-service
[ seal_crl_ext ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
crlDistributionPoints = URI:${crlBase}/ca.crl
[ tsa_ext ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
authorityInfoAccess = OCSP;URI:${ocspBase}/ocsp
[ ocsp_ext ]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, OCSPSigning
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
noCheck = ignored
`,
  );
  // openssl ts -reply's configuration (RFC 3161 TSA): SHA-256 tokens, the signer's certificate and the
  // chain included when asked (certReq), ESS signing-certificate-v2, accuracy of one second.
  writeFileSync(
    p("tsa.cnf"),
    `[ tsa ]
default_tsa = test_tsa
[ test_tsa ]
dir = ${dir}
serial = ${p("tsaserial")}
crypto_device = builtin
signer_cert = ${p("tsa.pem")}
certs = ${p("ca.pem")}
signer_key = ${p("tsa.key")}
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.27.1
other_policies = 1.3.6.1.4.1.99999.27.2
digests = sha1, sha256, sha384, sha512
accuracy = secs:1
clock_precision_digits = 0
ordering = yes
tsa_name = no
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`,
  );

  const key = (name) => openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", p(`${name}.key`)]);
  key("ca");
  openssl(["req", "-config", p("ca.cnf"), "-new", "-x509", "-key", p("ca.key"), "-out", p("ca.pem"), "-days", "3650", "-subj", "/CN=esign-vault test root CA (throwaway)/O=esign-vault tests", "-extensions", "root_ext", "-sha256"]);
  const issue = (name, cn, ext) => {
    key(name);
    openssl(["req", "-config", p("ca.cnf"), "-new", "-key", p(`${name}.key`), "-out", p(`${name}.csr`), "-subj", `/CN=${cn}/O=esign-vault tests`]);
    // notBefore a day back: a worker's clock and the stand-ins' never disagree about validity
    const start = new Date(Date.now() - 86400_000).toISOString().replace(/[-:T]/g, "").slice(2, 14) + "Z";
    openssl(["ca", "-batch", "-config", p("ca.cnf"), "-extensions", ext, "-startdate", start, "-in", p(`${name}.csr`), "-out", p(`${name}.pem`), "-notext"]);
  };
  issue("seal", "esign-vault test LT seal", "seal_ext");
  issue("seal-outage", "esign-vault test LT seal (OCSP outage)", "seal_outage_ext");
  issue("seal-outage-service", "esign-vault test LT seal (OCSP outage, service tests)", "seal_outage_service_ext");
  issue("seal-crl", "esign-vault test LT seal (CRL only)", "seal_crl_ext");
  issue("tsa", "esign-vault test TSA", "tsa_ext");
  issue("ocsp", "esign-vault test OCSP responder", "ocsp_ext");
  // The CRL (empty: nothing revoked), served as DER at <crlBase>/ca.crl
  openssl(["ca", "-config", p("ca.cnf"), "-gencrl", "-out", p("ca.crl.pem")]);
  openssl(["crl", "-in", p("ca.crl.pem"), "-outform", "DER", "-out", p("ca.crl")]);
  writeFileSync(p("pki.json"), JSON.stringify({ ocspBase, crlBase }));
  return readTestPki(dir);
}

/** The PKI made by makeTestPki in `dir`: paths and PEMs (seal chains: the certificate, then the root). */
export function readTestPki(dir) {
  const p = (name) => join(dir, name);
  if (!existsSync(p("pki.json"))) throw new Error(`no test PKI in ${dir}`);
  const read = (name) => readFileSync(p(name), "utf8");
  const ca = read("ca.pem");
  const sealOf = (name) => ({ privateKeyPem: read(`${name}.key`), certificatePem: read(`${name}.pem`) + ca });
  return {
    dir,
    ...JSON.parse(read("pki.json")),
    caPem: ca,
    /** seal naming OCSP `<ocspBase>/ocsp` and the CRL */
    seal: sealOf("seal"),
    /** seal naming OCSP `<ocspBase>/ocsp-outage` only (the path the outage tests take down) */
    sealOutage: sealOf("seal-outage"),
    /** the same naming `<ocspBase>/ocsp-outage-service`: the service-level outage tests' own path, so test files in parallel never share an outage */
    sealOutageService: sealOf("seal-outage-service"),
    /** seal naming only a CRL distribution point */
    sealCrl: sealOf("seal-crl"),
    tsaPem: read("tsa.pem"),
    paths: {
      ca: p("ca.pem"),
      caKey: p("ca.key"),
      index: p("index.txt"),
      tsaConfig: p("tsa.cnf"),
      tsaCert: p("tsa.pem"),
      tsaKey: p("tsa.key"),
      ocspCert: p("ocsp.pem"),
      ocspKey: p("ocsp.key"),
      crlDer: p("ca.crl"),
    },
  };
}
