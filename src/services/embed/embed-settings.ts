import { notFound } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import type { Actor } from "../../lib/actor";
import { commitWithOrgAudit } from "../audit/org-chain";
import { frameAncestorsCsp, normalizeOrigins, parseStoredOrigins, storedOrigins } from "./frame-ancestors";
import type { EmbedSettings } from "./schema";

export async function getEmbedSettings(db: D1Database, orgId: string): Promise<EmbedSettings> {
  const row = await db
    .prepare("SELECT embed_frame_ancestors, updated_at FROM organizations WHERE id = ?")
    .bind(orgId)
    .first<{ embed_frame_ancestors: string | null; updated_at: string }>();
  if (!row) throw notFound("Organization");
  const origins = parseStoredOrigins(row.embed_frame_ancestors);
  return { org_id: orgId, frame_ancestors: origins, content_security_policy: frameAncestorsCsp(origins), updated_at: row.updated_at };
}

/** Replaces the organization's list (normalized, duplicates dropped) with its audit entry in one batch. */
export async function setFrameAncestors(db: D1Database, input: { orgId: string; actor: Actor; frameAncestors: string[] }): Promise<EmbedSettings> {
  const origins = normalizeOrigins(input.frameAncestors);
  const at = nowIso();
  await commitWithOrgAudit(db, { orgId: input.orgId, action: "org.embed_settings_updated", actor: input.actor, data: { frame_ancestors: origins }, at }, [
    db.prepare("UPDATE organizations SET embed_frame_ancestors = ?, updated_at = ? WHERE id = ?").bind(storedOrigins(origins), at, input.orgId),
  ]);
  return getEmbedSettings(db, input.orgId);
}
