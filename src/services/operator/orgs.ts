import type { RequestContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { normalizeOrigins, parseStoredOrigins, storedOrigins } from "../embed/frame-ancestors";
import { findOrganization, getOrganizationSettings, organizationInsert, organizationUpdate, type OrganizationChanges } from "../organizations/repository";

export async function assertOrgExists(db: D1Database, orgId: string): Promise<void> {
  const row = await findOrganization(db, orgId);
  if (!row) throw notFound("Organization");
}

export async function createOrg(ctx: RequestContext, input: { name: string }) {
  const db = ctx.db;
  const orgId = newId("organization");
  const at = nowIso();
  await commitWithOrgAudit(db, { orgId, action: "org.created", actor: ctx.actor, data: { name: input.name }, at }, [
    organizationInsert(db, { id: orgId, name: input.name, at }),
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
    reminder_after_days?: number | null;
    reminder_every_days?: number | null;
  },
) {
  const db = ctx.db;
  await assertOrgExists(db, input.orgId);
  const at = nowIso();
  const changes: OrganizationChanges = {};
  const audited: Record<string, unknown> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.stripe_account_id !== undefined) changes.stripe_account_id = input.stripe_account_id;
  if (input.platform_fee_bps !== undefined) changes.platform_fee_bps = input.platform_fee_bps;
  // reminder defaults (DESIGN.md 12) for the organization's envelopes that set none
  if (input.reminder_after_days !== undefined) changes.reminder_after_days = input.reminder_after_days;
  if (input.reminder_every_days !== undefined) changes.reminder_every_days = input.reminder_every_days;
  if (input.embed_frame_ancestors !== undefined) {
    const origins = normalizeOrigins(input.embed_frame_ancestors ?? []);
    changes.embed_frame_ancestors = storedOrigins(origins);
    audited.embed_frame_ancestors = origins;
  }
  await commitWithOrgAudit(db, { orgId: input.orgId, action: "org.updated", actor: ctx.actor, data: { ...changes, ...audited }, at }, [
    organizationUpdate(db, input.orgId, changes, at),
  ]);
  const row = await getOrganizationSettings(db, input.orgId);
  const { id, embed_frame_ancestors, ...rest } = row!;
  return { org_id: id, ...rest, embed_frame_ancestors: parseStoredOrigins(embed_frame_ancestors) };
}
