import * as pkijs from "pkijs";
import type { RequestContext } from "../../lib/context";
import { sha256Hex } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { pemBlocks } from "../../pdf";
import { certificatePem } from "./pem";
import type { SealCertificate } from "./schema";

const NAMES: Record<string, string> = {
  "2.5.4.3": "CN",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  "2.5.4.6": "C",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.5": "serialNumber",
  "2.5.4.97": "organizationIdentifier",
  "1.2.840.113549.1.9.1": "emailAddress",
};

/** A distinguished name as `CN=…, O=…`, in the certificate's order. */
function distinguishedName(name: pkijs.RelativeDistinguishedNames): string {
  return name.typesAndValues
    .map((t) => {
      const value = (t.value.valueBlock as { value?: unknown }).value;
      return `${NAMES[t.type] ?? t.type}=${typeof value === "string" ? value : "?"}`;
    })
    .join(", ");
}

async function describe(der: Uint8Array, current: boolean, variable: string): Promise<SealCertificate> {
  let cert: pkijs.Certificate;
  try {
    cert = pkijs.Certificate.fromBER(der);
  } catch {
    throw new ApiError(503, `Service not configured: the ${variable} variable holds a certificate that is not readable X.509`);
  }
  return {
    sha256: await sha256Hex(der),
    subject: distinguishedName(cert.subject),
    issuer: distinguishedName(cert.issuer),
    not_before: cert.notBefore.value.toISOString(),
    not_after: cert.notAfter.value.toISOString(),
    certificate_pem: certificatePem(der),
    current,
  };
}

/**
 * GET /api/v2/seal-certificates (public): the certificates whose fingerprints an auditor pins when
 * checking an evidence bundle (`verify.mjs --seal-sha256`): the configured seal certificate (the
 * first of SEAL_CERTIFICATE, `current`), then every certificate of SEAL_RETIRED_CERTIFICATES (seals
 * renewed away from, kept so documents and bundles they signed still verify). No seal configured: only
 * the retired ones (possibly none), not an error; an unreadable certificate is a 503 naming its variable.
 */
export async function listSealCertificates(ctx: RequestContext): Promise<SealCertificate[]> {
  const out: SealCertificate[] = [];
  const configured = ctx.env.SEAL_CERTIFICATE?.trim();
  if (configured) {
    const [leaf] = pemBlocks(configured, "CERTIFICATE");
    if (!leaf) throw new ApiError(503, "Service not configured: the SEAL_CERTIFICATE variable is not a PEM certificate (-----BEGIN CERTIFICATE-----)");
    out.push(await describe(leaf, true, "SEAL_CERTIFICATE"));
  }
  const retired = ctx.env.SEAL_RETIRED_CERTIFICATES?.trim();
  if (retired) {
    const ders = pemBlocks(retired, "CERTIFICATE");
    if (ders.length === 0) throw new ApiError(503, "Service not configured: the SEAL_RETIRED_CERTIFICATES variable holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    for (const der of ders) {
      const described = await describe(der, false, "SEAL_RETIRED_CERTIFICATES");
      if (!out.some((c) => c.sha256 === described.sha256)) out.push(described);
    }
  }
  return out;
}
