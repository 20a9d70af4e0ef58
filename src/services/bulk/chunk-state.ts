import type { Locale } from "../../db/schema/locales";
import type { BulkHooks } from "../../../durable-objects/bulk-batch";
import type { OrgContext } from "../../lib/context";
import type { EnvelopeConsent } from "../envelopes/repository";
import type { FieldRow, TemplateRow } from "../templates/repository";
import type { ResolvedField } from "../templates/schema";
import type { ClientData } from "./create-bulk-envelope";
import type { BatchRow, ChunkItemRow } from "./repository";

/** What one chunk of the bulk-send workflow reads once and shares between its groups (run-chunk.ts). */
export type Master = { template: TemplateRow; fields: ResolvedField[]; rows: FieldRow[]; roles: string[] };
export type Sender = { email: string; name: string };
/** An item of the chunk with what the chunk read beside it: its client and its envelope's status, if created. */
export type ChunkItem = ChunkItemRow;
export type RunState = { ctx: OrgContext; batch: BatchRow; master: Master; sender: Sender; orgName: string; consentOf: (item: { locale: Locale | null }) => EnvelopeConsent; hooks: BulkHooks };

export const isCrash = (err: unknown) => err instanceof Error && err.name === "InjectedCrash";

export const clientOf = (item: ChunkItem): ClientData | null =>
  item.client_email ? { name: item.client_name!, email: item.client_email, primary_contact_name: item.client_contact } : null;

/** The signers of spec 4.8's table: the client first (or at once with the sender), the sender as the second party. */
export function bulkSigners(batch: Pick<BatchRow, "preserve_signing_order" | "add_me_as_signer">, roles: string[], client: ClientData, sender: Sender, phone: string | null) {
  const contact = client.primary_contact_name?.trim() || client.name;
  // an item with a phone: the client's signer asks for the texted code, as `auth: "sms_otp"` on a single send
  const signers: { role: string; email: string; name: string; routing_order: number; auth?: "sms_otp"; phone?: string }[] = [
    { role: roles[0]!, email: client.email, name: contact, routing_order: 1, ...(phone ? { auth: "sms_otp" as const, phone } : {}) },
  ];
  if (batch.add_me_as_signer === 1) signers.push({ role: roles[1]!, email: sender.email, name: sender.name, routing_order: batch.preserve_signing_order === 1 ? 2 : 1 });
  return signers;
}

/** A group batch failed (D1, a constraint, an injected failure): its items go through the manual path one by one. */
export function logGroupFailure(batchId: string, step: string, err: unknown) {
  console.warn(JSON.stringify({ level: "warn", bulk_batch: batchId, group_step: step, fallback: "item by item", error: String(err) }));
}
