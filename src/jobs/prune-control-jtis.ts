import type { RequestContext } from "../lib/context";
import { pruneControlJtis as pruneRows } from "../services/control/repository";
import { SIGNATURE_WINDOW_SECONDS } from "../services/control/signature";

/**
 * How long a spent key-change `jti` is kept: its signature's `iat` may be up to 5 minutes old or ahead,
 * so after 15 minutes no signature carrying it can verify any more and its row protects nothing.
 */
export const CONTROL_JTI_RETENTION_MS = 3 * SIGNATURE_WINDOW_SECONDS * 1000;
const BATCH = 1000;

/** Every minute, once (a global job): deletes spent control jtis past their retention, in one bounded batch. */
export async function pruneControlJtis(ctx: RequestContext, now: Date): Promise<{ deleted: number }> {
  const cutoff = new Date(now.getTime() - CONTROL_JTI_RETENTION_MS).toISOString();
  const result = await pruneRows(ctx.global, { cutoff, limit: BATCH });
  return { deleted: result.meta.changes ?? 0 };
}
