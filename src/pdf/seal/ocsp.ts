import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

const OID = {
  authorityInfoAccess: "1.3.6.1.5.5.7.1.1",
  crlDistributionPoints: "2.5.29.31",
  ocsp: "1.3.6.1.5.5.7.48.1",
  caIssuers: "1.3.6.1.5.5.7.48.2",
  basicOcspResponse: "1.3.6.1.5.5.7.48.1.1",
};

/** Where a certificate says its status is found (AIA OCSP, CRL distribution points) and its issuer (AIA caIssuers). */
export type RevocationSources = { ocsp: string[]; crl: string[]; caIssuers: string[] };

/** What a revocation check reached: the DER of a checked OCSP response or CRL, or why there is none. Never thrown. */
export type RevocationResult = { ok: true; kind: "ocsp" | "crl"; url: string; der: Uint8Array } | { ok: false; reason: string };

/** How the revocation data is fetched: the fetch to use (default the global one) and a bound on each request. */
export type RevocationFetch = { fetch?: typeof fetch; timeoutMs?: number };

const uri = (name: pkijs.GeneralName): string | null => (name.type === 6 && typeof name.value === "string" ? name.value : null);

/** The OCSP responders, CRL distribution points and CA-issuer URLs a certificate names (http(s) only). */
export function revocationSourcesOf(cert: pkijs.Certificate): RevocationSources {
  const out: RevocationSources = { ocsp: [], crl: [], caIssuers: [] };
  const web = (u: string | null) => (u && /^https?:\/\//i.test(u) ? u : null);
  for (const ext of cert.extensions ?? []) {
    try {
      if (ext.extnID === OID.authorityInfoAccess) {
        const info = ext.parsedValue instanceof pkijs.InfoAccess ? ext.parsedValue : new pkijs.InfoAccess({ schema: asn1js.fromBER(ext.extnValue.valueBlock.valueHexView).result });
        for (const d of info.accessDescriptions) {
          const u = web(uri(d.accessLocation));
          if (!u) continue;
          if (d.accessMethod === OID.ocsp) out.ocsp.push(u);
          else if (d.accessMethod === OID.caIssuers) out.caIssuers.push(u);
        }
      } else if (ext.extnID === OID.crlDistributionPoints) {
        const dps = ext.parsedValue instanceof pkijs.CRLDistributionPoints ? ext.parsedValue : new pkijs.CRLDistributionPoints({ schema: asn1js.fromBER(ext.extnValue.valueBlock.valueHexView).result });
        for (const dp of dps.distributionPoints) {
          if (!Array.isArray(dp.distributionPoint)) continue;
          for (const name of dp.distributionPoint) {
            const u = web(uri(name));
            if (u) out.crl.push(u);
          }
        }
      }
    } catch {
      // an unreadable extension names nothing
    }
  }
  return out;
}

/** True when the certificate names an OCSP responder or a CRL: the seal can reach B-LT. */
export const namesRevocationSource = (cert: pkijs.Certificate): boolean => {
  const s = revocationSourcesOf(cert);
  return s.ocsp.length > 0 || s.crl.length > 0;
};

async function httpFetch(url: string, init: RequestInit, opts: RevocationFetch): Promise<{ ok: true; body: ArrayBuffer } | { ok: false; reason: string }> {
  try {
    const res = await (opts.fetch ?? fetch)(url, { ...init, signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000) });
    if (!res.ok) return { ok: false, reason: `${url} answered HTTP ${res.status}` };
    return { ok: true, body: await res.arrayBuffer() };
  } catch (err) {
    return { ok: false, reason: `${url} could not be reached (${err instanceof Error ? err.message : String(err)})` };
  }
}

/**
 * Asks `url` for the status of `cert` (RFC 6960): an OCSPRequest with a SHA-1 CertID (what every
 * responder, OpenSSL's included, answers) POSTed as application/ocsp-request. The answer is kept only
 * when it is `successful`, a basic response covering this certificate, `good`, current (thisUpdate not
 * in the future, nextUpdate not past), and signed by the issuer or a responder it delegated (EKU
 * OCSPSigning, issued by it): `checkOcspResponse`.
 */
export async function fetchOcspResponse(cert: pkijs.Certificate, issuer: pkijs.Certificate, url: string, opts: RevocationFetch = {}): Promise<RevocationResult> {
  const request = new pkijs.OCSPRequest();
  try {
    await request.createForCertificate(cert, { hashAlgorithm: "SHA-1", issuerCertificate: issuer });
  } catch (err) {
    return { ok: false, reason: `no OCSP request could be made (${err instanceof Error ? err.message : String(err)})` };
  }
  const answer = await httpFetch(
    url,
    { method: "POST", headers: { "Content-Type": "application/ocsp-request", Accept: "application/ocsp-response" }, body: request.toSchema(true).toBER(false) },
    opts,
  );
  if (!answer.ok) return { ok: false, reason: `OCSP responder ${answer.reason}` };
  const der = new Uint8Array(answer.body);
  const problem = await checkOcspResponse(der, cert, issuer);
  return problem ? { ok: false, reason: `OCSP responder ${url}: ${problem}` } : { ok: true, kind: "ocsp", url, der };
}

/** Why an OCSP response (DER) does not show `cert` good, or null when it does (see fetchOcspResponse). */
export async function checkOcspResponse(der: Uint8Array, cert: pkijs.Certificate, issuer: pkijs.Certificate, at: Date = new Date()): Promise<string | null> {
  let basic: pkijs.BasicOCSPResponse;
  try {
    const response = pkijs.OCSPResponse.fromBER(der);
    const status = response.responseStatus.valueBlock.valueDec;
    if (status !== 0) return `the response status is ${status}, not successful`;
    if (!response.responseBytes || response.responseBytes.responseType !== OID.basicOcspResponse) return "the response is not a basic OCSP response";
    basic = pkijs.BasicOCSPResponse.fromBER(response.responseBytes.response.valueBlock.valueHexView);
  } catch {
    return "the answer is not a readable OCSP response";
  }
  const status = await basic.getCertificateStatus(cert, issuer);
  if (!status.isForCertificate) return "the response does not cover the certificate";
  if (status.status !== 0) return status.status === 1 ? "the certificate is revoked" : "the certificate's status is unknown";
  const single = basic.tbsResponseData.responses[0]!;
  const skew = 5 * 60_000;
  if (single.thisUpdate.getTime() > at.getTime() + skew) return "the response is dated in the future";
  if (single.nextUpdate && single.nextUpdate.getTime() < at.getTime() - skew) return "the response is out of date (nextUpdate passed)";
  try {
    if (!(await basic.verify({ trustedCerts: [issuer] }))) return "the response's signature does not verify";
  } catch (err) {
    return `the response is not signed by the issuer or a responder it delegated (${err instanceof Error ? err.message : String(err)})`;
  }
  return null;
}

/**
 * Fetches the CRL at `url` (DER, or PEM) and keeps it when it is the issuer's (its name and signature),
 * current (nextUpdate not past) and does not list `cert`.
 */
export async function fetchCrl(cert: pkijs.Certificate, issuer: pkijs.Certificate, url: string, opts: RevocationFetch = {}): Promise<RevocationResult> {
  const answer = await httpFetch(url, { method: "GET", headers: { Accept: "application/pkix-crl" } }, opts);
  if (!answer.ok) return { ok: false, reason: `CRL ${answer.reason}` };
  let der = new Uint8Array(answer.body);
  const text = new TextDecoder("latin1").decode(der.subarray(0, 64));
  if (text.includes("-----BEGIN X509 CRL-----")) {
    const b64 = new TextDecoder("latin1").decode(der).replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
    der = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  }
  const problem = await checkCrl(der, cert, issuer);
  return problem ? { ok: false, reason: `CRL ${url}: ${problem}` } : { ok: true, kind: "crl", url, der };
}

/** Why a CRL (DER) does not show `cert` unrevoked, or null when it does. */
export async function checkCrl(der: Uint8Array, cert: pkijs.Certificate, issuer: pkijs.Certificate, at: Date = new Date()): Promise<string | null> {
  let crl: pkijs.CertificateRevocationList;
  try {
    crl = pkijs.CertificateRevocationList.fromBER(der);
  } catch {
    return "the answer is not a readable CRL";
  }
  if (!crl.issuer.isEqual(cert.issuer)) return "the CRL is not the certificate issuer's";
  try {
    if (!(await crl.verify({ issuerCertificate: issuer }))) return "the CRL's signature does not verify";
  } catch {
    return "the CRL's signature does not verify";
  }
  if (crl.nextUpdate && crl.nextUpdate.value.getTime() < at.getTime() - 5 * 60_000) return "the CRL is out of date (nextUpdate passed)";
  if (crl.isCertificateRevoked(cert)) return "the certificate is revoked";
  return null;
}

/**
 * The revocation data of `cert`: each OCSP responder it names, then each CRL, the first that answers
 * well. `{ ok: false }` names every failure (or that the certificate names no source).
 */
export async function fetchRevocation(cert: pkijs.Certificate, issuer: pkijs.Certificate, opts: RevocationFetch = {}): Promise<RevocationResult> {
  const sources = revocationSourcesOf(cert);
  if (sources.ocsp.length === 0 && sources.crl.length === 0) return { ok: false, reason: "the certificate names no OCSP responder or CRL" };
  const reasons: string[] = [];
  for (const url of sources.ocsp) {
    const r = await fetchOcspResponse(cert, issuer, url, opts);
    if (r.ok) return r;
    reasons.push(r.reason);
  }
  for (const url of sources.crl) {
    const r = await fetchCrl(cert, issuer, url, opts);
    if (r.ok) return r;
    reasons.push(r.reason);
  }
  return { ok: false, reason: reasons.join("; ") };
}

/** The issuer of `cert` among `candidates` (by name, then signature), or null. */
export async function issuerOf(cert: pkijs.Certificate, candidates: pkijs.Certificate[]): Promise<pkijs.Certificate | null> {
  for (const c of candidates) {
    if (!c.subject.isEqual(cert.issuer)) continue;
    try {
      if (await cert.verify(c)) return c;
    } catch {
      // not this one
    }
  }
  return null;
}

/** True when the certificate is its own issuer (a root: no revocation data is asked for it). */
export const isSelfIssued = (cert: pkijs.Certificate): boolean => cert.subject.isEqual(cert.issuer);
