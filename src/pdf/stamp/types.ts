import type { Area } from "../open-pdf";

/**
 * A value to put on the page: text (typed values, dates, typed signatures, a chosen option), a PNG
 * (drawn signatures), a checkbox's `X`, or a radio's filled circle (`dot`).
 */
export type StampValue = { kind: "text"; text: string; script?: boolean } | { kind: "image"; png: Uint8Array } | { kind: "check" } | { kind: "dot" };
export type Stamp = { areas: Area[]; value: StampValue };

export type CertificateSigner = {
  name: string;
  email: string;
  role: string;
  routing_order: number;
  ip: string | null;
  user_agent: string | null;
  viewed_at: string | null;
  signed_at: string | null;
  /** the signer's identity verification outcome as the certificate page states it (e.g. KBA passed); absent: "none" */
  identity_verification?: string;
  /** the files the signer attached (attachment fields), one line each: field, name, type, size, SHA-256 */
  attachments?: string[];
};

export type CertificateInput = {
  envelopeId: string;
  envelopeName: string;
  completedAt: string;
  originalSha256: string;
  /** SHA-256 of the stamped document before this page was appended */
  stampedSha256: string;
  signers: CertificateSigner[];
};
