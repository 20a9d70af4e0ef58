import { listKbaResults, type KbaResultRow } from "./repository";
import type { ShardDb } from "../../lib/shards";

/** "2026-11-23T14:02:11.000Z" -> "2026-11-23 14:02 UTC" */
const minuteUtc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** One line for the signing certificate page, e.g. "KBA passed (sandbox session kbasbx_…, 2026-11-23 14:02 UTC)". */
export const kbaLine = (r: Pick<KbaResultRow, "status" | "provider" | "provider_session_id" | "occurred_at">) =>
  `KBA ${r.status} (${r.provider} session ${r.provider_session_id}, ${minuteUtc(r.occurred_at)})`;

/** Each challenged signer's KBA outcome as the signing certificate page states it, by signer id. */
export async function kbaCertificateLines(db: ShardDb, envelopeId: string): Promise<Map<string, string>> {
  return new Map((await listKbaResults(db, envelopeId)).map((r) => [r.signer_id, kbaLine(r)]));
}
