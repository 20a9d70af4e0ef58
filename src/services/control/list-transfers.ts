import type { OrgContext } from "../../lib/context";
import type { TransferStatus } from "../../db/schema";
import { listAcrossShards } from "../shards/fan-out";
import { orgShardSet } from "../shards/repository";
import { listTransfers as listTransferRows } from "./repository";
import { transferView, type TransferView } from "./view";

/**
 * GET /partner/vault/transfers (docs/control.md): the caller's transfers, newest first: those offered to it
 * (`incoming`) or by it (`outgoing`), optionally of one status. A pending transfer past its
 * `expires_at` is listed as it is stored until the expiry job (every minute) settles it.
 *
 * A transfer lives on its record's shard (docs/decisions/shards.md 4), so the list runs over the
 * organization's shard set: an offer adds the record's shard to the transferee's set before the
 * transfer is written, so every shard holding a transfer to or from the caller is in it.
 */
export async function listTransfers(
  ctx: OrgContext,
  input: { direction: "incoming" | "outgoing"; status: TransferStatus | null; page: number; limit: number },
): Promise<{ rows: TransferView[]; total: number }> {
  const shards = await orgShardSet(ctx.global, ctx.orgId);
  const { rows, total } = await listAcrossShards(ctx, shards, { limit: input.limit, offset: (input.page - 1) * input.limit }, (shardCtx, window) =>
    listTransferRows(shardCtx.db, { orgId: ctx.orgId, direction: input.direction, status: input.status, ...window }),
  );
  return { rows: rows.map(transferView), total };
}
