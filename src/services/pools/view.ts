import type { PoolRow } from "./repository";

/** A pool as either party reads it (docs/control.md "Pools"). */
export type PoolView = {
  pool_id: string;
  kind: PoolRow["kind"];
  from_org_id: string;
  to_org_id: string;
  status: PoolRow["status"];
  reference: string | null;
  count: number;
  manifest_sha256: string;
  created_at: string;
  expires_at: string;
  /** when the pool was accepted, rejected, cancelled or expired */
  settled_at: string | null;
  /** records moved so far (an accepted pool) and when the last one did */
  progress: { moved: number; remaining: number; completed_at: string | null };
};

export function poolView(row: PoolRow, moved = row.completed_at ? row.count : 0): PoolView {
  return {
    pool_id: row.id,
    kind: row.kind,
    from_org_id: row.from_org_id,
    to_org_id: row.to_org_id,
    status: row.status,
    reference: row.reference,
    count: row.count,
    manifest_sha256: row.manifest_sha256,
    created_at: row.created_at,
    expires_at: row.expires_at,
    settled_at: row.settled_at,
    progress: { moved, remaining: row.status === "accepted" ? row.count - moved : 0, completed_at: row.completed_at },
  };
}
