import type { SigningState } from "../../src/services/signing/schema";

// The signer's state is the API's own type (type-only import: nothing of the server is bundled).
export type { SigningState };
export type Field = SigningState["fields"][number];
export type Area = Field["areas"][number];

export type SignatureValue = { kind: "drawn"; dataUrl: string } | { kind: "typed"; text: string };

export type SubmittedValue = string | number | boolean | null;

/** E-SIGN consent (docs/consumer-signing.md): where it applies, GET /signing/:slug carries it; else `consent: null`. */
export type Disclosure = { version: number; text: string; paper_copy_contact: string; withdrawal_instructions: string };
export type ConsentState = { required: boolean; given_at: string | null; disclosure: Disclosure };
/** The signer's copy, for 30 days after the envelope completes: a no-login download link. */
export type CopyLink = { url: string; expires_at: string };

/** The state as the page reads it: the API's own type, with the consent step and the copy. */
export type PageState = Omit<SigningState, "consent" | "copy"> & { consent?: ConsentState | null; copy?: CopyLink | null };
