/**
 * Unit prices of the usage lines, in US cents (spec part 8). KBA: 400 per verified client signer, no
 * included allowance, billed monthly; only a verified (`passed`) signer is billed, never a `failed` or
 * `unavailable` check (docs/decisions/kba-checks.md).
 */
export const USAGE_KINDS = {
  kba_verification: { unitCents: 400, label: "KBA identity verification" },
  /** one per envelope created, by the API or bulk send (counted; the e-sign price is the organization's contract, not the spec's) */
  esign_envelope: { unitCents: 0, label: "E-sign envelope" },
  /** one per one-time passcode texted to a signer (docs/decisions/sms-otp.md); the price is the organization's contract */
  sms_otp: { unitCents: 0, label: "SMS one-time passcode" },
} as const satisfies Record<string, { unitCents: number; label: string }>;
export type UsageKind = keyof typeof USAGE_KINDS;
