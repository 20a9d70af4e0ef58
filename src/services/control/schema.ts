import { z } from "@hono/zod-openapi";
import { TRANSFER_KINDS, TRANSFER_STATUSES } from "../../db/schema";

// Shared zod schemas of control of the authoritative copy (docs/control.md). Helpers append below.

// The transfer's shape (`TransferSchema`, component `VaultTransfer`) and `{vault_id}` (`VaultParams`)
// live in ./record-schema.ts (the record shows its pending transfer); re-exported here for the
// transfer routes.
export { TransferSchema, VaultParams } from "./record-schema";

/** `{transfer_id}` in a path. */
export const TransferParams = z.object({
  transfer_id: z.string().max(64).openapi({ param: { name: "transfer_id", in: "path" }, example: "vtr_7c1v9b3n5m2k8q4w6e0r2t4y6u" }),
});

const TransferStatusEnum = z.enum(TRANSFER_STATUSES);

export const OfferTransferBody = z
  .object({
    kind: z.enum(TRANSFER_KINDS).openapi({ description: "`assignment`: control passes to the receiver for good; `pledge`: the receiver holds control until it releases the pledge" }),
    to_org_id: z.string().min(1).max(64).openapi({ description: "The receiving organization (not the caller)", example: "org_5c1k7m3q9c2v8b4n6p0r2t4w6y" }),
    reference: z.string().min(1).max(500).optional().openapi({ description: "The parties' own reference, kept on the transfer and the chain" }),
  })
  .openapi("OfferTransfer", { example: { kind: "assignment", to_org_id: "org_5c1k7m3q9c2v8b4n6p0r2t4w6y", reference: "Sale of pool 2026-11 / contract 1042" } });

export const TransferListQuery = z.object({
  direction: z
    .enum(["incoming", "outgoing"])
    .default("incoming")
    .openapi({ param: { name: "direction", in: "query" }, description: "`incoming`: offered to the caller (default); `outgoing`: offered by it", example: "incoming" }),
  status: TransferStatusEnum.optional().openapi({ param: { name: "status", in: "query" }, example: "pending" }),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1).openapi({ example: 1 }),
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ example: 20 }),
});

export const PaidOffBody = z
  .object({
    reference: z.string().min(1).max(500).optional().openapi({ description: "The payoff's reference (a receipt or a payoff letter), kept on the record and the chain" }),
  })
  .openapi("PaidOff", { example: { reference: "Payoff letter 2027-03-01 #88213" } });

export const PaperOutBody = z
  .object({
    reason: z.string().trim().min(1).max(1000).openapi({ description: "Why the record leaves electronic form (kept on the record and the chain)" }),
  })
  .openapi("PaperOut", { example: { reason: "Converted to paper for a court filing in Harris County" } });

