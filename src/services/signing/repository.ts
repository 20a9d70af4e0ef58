import type { Area } from "../../pdf";
import type { SigningFieldRow } from "../documents/repository";

// The signing surface reads through its owners: the signing context (signer, envelope, fields) is
// ../signers/signing-context.ts, the fields' statements ../documents/repository.ts.
export { loadSigningContext, OPEN_STATUSES, type SigningContext } from "../signers/signing-context";
export { setFieldValueStatement } from "../documents/repository";
export type EnvelopeFieldRow = SigningFieldRow;

export const areasOf = (field: Pick<SigningFieldRow, "areas">): Area[] => JSON.parse(field.areas) as Area[];

export const optionsOf = (field: Pick<SigningFieldRow, "options">): string[] | null => (field.options ? (JSON.parse(field.options) as string[]) : null);
