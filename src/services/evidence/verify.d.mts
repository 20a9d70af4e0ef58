// Types of verify.mjs (the evidence bundles' verifier, plain JavaScript so that its bytes are the
// ones every bundle carries and the service publishes).

export type EvidenceVerdict =
  | { verified: true; checks: string[]; notes: string[]; producedAt: string | null; attestedAt: string | null; timestamps: "none" | "pinned" | "unpinned" }
  | { verified: false; checks: string[]; notes: string[]; broken: string; producedAt: string | null; attestedAt: string | null };

export function verifyEvidence(
  files: Record<string, Uint8Array>,
  sha256Hex: (bytes: Uint8Array) => Promise<string> | string,
  options?: { sealSha256?: string[]; tsaSha256?: string[]; subtle?: SubtleCrypto; /** check an organization's audit export (entries.ndjson and its chains) instead of a bundle */ auditExport?: boolean },
): Promise<EvidenceVerdict>;

/** `node verify.mjs <args>`: prints the outcome and resolves to the exit code (0, 1, 2 or 3). */
export function main(args: string[]): Promise<number>;
