import type { SigningState } from "../../src/services/signing/schema";

// The signer's state is the API's own type (type-only import: nothing of the server is bundled).
export type { SigningState };
export type Field = SigningState["fields"][number];
export type Area = Field["areas"][number];

export type SignatureValue = { kind: "drawn"; dataUrl: string } | { kind: "typed"; text: string };

export type SubmittedValue = string | number | boolean | null;
