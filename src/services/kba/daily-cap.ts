import { KBA_SETS_PER_DAY } from "../../db/schema/kba";
import { ApiError, type ErrorCodesByStatus } from "../../lib/errors";
import { addSeconds } from "../../lib/time";
import { countSessionsSince } from "./repository";
import type { ShardDb } from "../../lib/shards";

/** The window of the cap on question sets: a rolling day. */
export const KBA_SET_CAP_WINDOW_SECONDS = 24 * 60 * 60;

/**
 * At most KBA_SETS_PER_DAY question sets started per signer in any rolling day, whatever the
 * attempt counter says: every set is a billable provider call and a look at questions about the
 * person, so their number is held here independently of how attempts are counted (bureaus cap sets
 * per person and period too). Refused with 429 `kba_daily_limit` naming when a set can start again.
 * getKbaStep repeats the count inside its INSERT, so two racing first loads cannot both pass it.
 */
export async function assertUnderDailyCap(db: ShardDb, signerId: string, since: string): Promise<void> {
  const row = await countSessionsSince(db, signerId, since);
  if (!row || row.sets < KBA_SETS_PER_DAY) return;
  const resetsAt = addSeconds(row.oldest!, KBA_SET_CAP_WINDOW_SECONDS);
  const retryAfter = Math.max(1, Math.ceil((Date.parse(resetsAt) - Date.now()) / 1000));
  throw new ApiError(
    429,
    `Too many identity question sets for this signer: at most ${KBA_SETS_PER_DAY} a day. New questions can be asked from ${resetsAt}`,
    { kba_sets_per_day: KBA_SETS_PER_DAY, resets_at: resetsAt, retry_after: retryAfter },
    "kba_daily_limit",
  );
}

export const KBA_DAILY_CAP_ERRORS: ErrorCodesByStatus = { 429: ["kba_daily_limit"] };
