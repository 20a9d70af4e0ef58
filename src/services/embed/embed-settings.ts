import { notFound } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import type { OrgContext } from "../../lib/context";
import { commitWithOrgAudit } from "../audit/org-chain";
import { frameAncestorsUpdate, getOrganizationEmbedSettings } from "../organizations/repository";
import { frameAncestorsCsp, normalizeOrigins, parseStoredOrigins, storedOrigins } from "./frame-ancestors";
import type { EmbedSettings } from "./schema";

export async function getEmbedSettings(ctx: OrgContext): Promise<EmbedSettings> {
  const { global: db, orgId } = ctx;
  const row = await getOrganizationEmbedSettings(db, orgId);
  if (!row) throw notFound("Organization");
  const origins = parseStoredOrigins(row.embed_frame_ancestors);
  return { org_id: orgId, frame_ancestors: origins, content_security_policy: frameAncestorsCsp(origins), updated_at: row.updated_at };
}

/** Replaces the organization's list (normalized, duplicates dropped) with its audit entry in one batch. */
export async function setFrameAncestors(ctx: OrgContext, input: { frameAncestors: string[] }): Promise<EmbedSettings> {
  const { global: db, orgId } = ctx;
  const origins = normalizeOrigins(input.frameAncestors);
  const at = nowIso();
  await commitWithOrgAudit(db, { orgId, action: "org.embed_settings_updated", actor: ctx.actor, data: { frame_ancestors: origins }, at }, [
    frameAncestorsUpdate(db, orgId, storedOrigins(origins), at),
  ]);
  return getEmbedSettings(ctx);
}
