// The usage line's INSERT lives with the table's other statements (./repository.ts); these names stay
// importable from here for the verbs that bill (kba/record-outcome.ts, bulk/create-bulk-envelope.ts).
export { usageLineInsert, usageMonth, type UsageLineInput } from "./repository";
