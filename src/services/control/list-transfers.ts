import type { OrgContext } from "../../lib/context";
import type { TransferStatus } from "../../db/schema";
import { listTransfers as listTransferRows } from "./repository";
import { transferView, type TransferView } from "./view";

/**
 * GET /partner/vault/transfers (DESIGN.md 9): the caller's transfers, newest first: those offered to it
 * (`incoming`) or by it (`outgoing`), optionally of one status. A pending transfer past its
 * `expires_at` is listed as it is stored until the expiry job (every minute) settles it.
 */
export async function listTransfers(
  ctx: OrgContext,
  input: { direction: "incoming" | "outgoing"; status: TransferStatus | null; page: number; limit: number },
): Promise<{ rows: TransferView[]; total: number }> {
  const { rows, total } = await listTransferRows(ctx.db, {
    orgId: ctx.orgId,
    direction: input.direction,
    status: input.status,
    limit: input.limit,
    offset: (input.page - 1) * input.limit,
  });
  return { rows: rows.map(transferView), total };
}
