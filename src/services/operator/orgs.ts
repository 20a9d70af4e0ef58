import type { RequestContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { normalizeOrigins, parseStoredOrigins, storedOrigins } from "../embed/frame-ancestors";

export async function assertOrgExists(db: D1Database, orgId: string): Promise<void> {
  const row = await db.prepare("SELECT 1 AS ok FROM organizations WHERE id = ?").bind(orgId).first();
  if (!row) throw notFound("Organization");
}

export async function createOrg(ctx: RequestContext, input: { name: string }) {
  const db = ctx.db;
  const orgId = newId("organization");
  const at = nowIso();
  await commitWithOrgAudit(db, { orgId, action: "org.created", actor: ctx.actor, data: { name: input.name }, at }, [
    db.prepare("INSERT INTO organizations (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)").bind(orgId, input.name, at, at),
  ]);
  return { org_id: orgId, name: input.name, created_at: at };
}

export async function updateOrg(
  ctx: RequestContext,
  input: {
    orgId: string;
    name?: string;
    stripe_account_id?: string | null;
    platform_fee_bps?: number;
    embed_frame_ancestors?: string[] | null;
  },
) {
  const db = ctx.db;
  await assertOrgExists(db, input.orgId);
  const at = nowIso();
  const changes: Record<string, string | number | null> = {};
  const audited: Record<string, unknown> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.stripe_account_id !== undefined) changes.stripe_account_id = input.stripe_account_id;
  if (input.platform_fee_bps !== undefined) changes.platform_fee_bps = input.platform_fee_bps;
  if (input.embed_frame_ancestors !== undefined) {
    const origins = normalizeOrigins(input.embed_frame_ancestors ?? []);
    changes.embed_frame_ancestors = storedOrigins(origins);
    audited.embed_frame_ancestors = origins;
  }
  const columns = Object.keys(changes);
  await commitWithOrgAudit(db, { orgId: input.orgId, action: "org.updated", actor: ctx.actor, data: { ...changes, ...audited }, at }, [
    db
      .prepare(`UPDATE organizations SET updated_at = ?${columns.map((c) => `, ${c} = ?`).join("")} WHERE id = ?`)
      .bind(at, ...columns.map((c) => changes[c] ?? null), input.orgId),
  ]);
  const row = await db
    .prepare("SELECT id, name, stripe_account_id, platform_fee_bps, embed_frame_ancestors, created_at, updated_at FROM organizations WHERE id = ?")
    .bind(input.orgId)
    .first<{
      id: string;
      name: string;
      stripe_account_id: string | null;
      platform_fee_bps: number;
      embed_frame_ancestors: string | null;
      created_at: string;
      updated_at: string;
    }>();
  const { id, embed_frame_ancestors, ...rest } = row!;
  return { org_id: id, ...rest, embed_frame_ancestors: parseStoredOrigins(embed_frame_ancestors) };
}
