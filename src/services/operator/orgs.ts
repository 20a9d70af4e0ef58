import { rateLimiterFor } from "../../../durable-objects/rate-limiter";
import { onShard, type RequestContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { GlobalDb } from "../../lib/shards";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { normalizeOrigins, parseStoredOrigins, storedOrigins } from "../embed/frame-ancestors";
import {
  findOrganization,
  getOrganizationSettings,
  listOrganizations,
  organizationInsert,
  organizationShardUpdate,
  organizationUpdate,
  type OrganizationChanges,
  type OrganizationSettingsRow,
} from "../organizations/repository";
import { orgAnchorInsert, orgShardInsert } from "../shards/repository";
import { assertOpenShard, placementShard } from "../shards/registry";
import { apiKeysTouchForOrg, limiterRecord, loadKeysOfOrg } from "./api-keys/repository";

export async function assertOrgExists(db: GlobalDb, orgId: string): Promise<void> {
  const row = await findOrganization(db, orgId);
  if (!row) throw notFound("Organization");
}

const orgView = (row: OrganizationSettingsRow) => {
  const { id, embed_frame_ancestors, current_shard_id, ...rest } = row;
  return { org_id: id, ...rest, embed_frame_ancestors: parseStoredOrigins(embed_frame_ancestors), shard_id: current_shard_id };
};

/**
 * Creates an organization on the least full open shard (registry.placementShard). Its anchor on the
 * shard first (the target of the shard rows' foreign keys; a crash after it leaves an unused row),
 * then the global side in one batch (docs/decisions/shards.md 4): the row with its current shard, its
 * `org_shards` row, the org chain's first entry. So no organization exists without its anchor.
 */
export async function createOrg(ctx: RequestContext, input: { name: string; shard_id?: number }) {
  const db = ctx.global;
  if (input.shard_id !== undefined) await assertOpenShard(ctx, input.shard_id, ["shard_id"]);
  const shard = input.shard_id ?? (await placementShard(ctx));
  const orgId = newId("organization");
  const at = nowIso();
  await orgAnchorInsert(onShard(ctx, shard).db, orgId, at).run();
  await commitWithOrgAudit(db, { orgId, action: "org.created", actor: ctx.actor, data: { name: input.name, shard_id: shard }, at }, [
    organizationInsert(db, { id: orgId, name: input.name, shard, at }),
    orgShardInsert(db, { orgId, shard, reason: "placed", at }),
  ]);
  return { org_id: orgId, name: input.name, shard_id: shard, created_at: at };
}

export async function getOrg(ctx: RequestContext, input: { orgId: string }) {
  const row = await getOrganizationSettings(ctx.global, input.orgId);
  if (!row) throw notFound("Organization");
  return orgView(row);
}

/** The operator's list of organizations, in creation order (keyset: `after` = the last org id seen). */
export async function listOrgs(ctx: RequestContext, input: { after?: string; limit: number }) {
  const rows = await listOrganizations(ctx.global, { after: input.after ?? null, limit: input.limit });
  return {
    data: rows.map((r) => ({ org_id: r.id, name: r.name, shard_id: r.current_shard_id, created_at: r.created_at })),
    next_after: rows.length === input.limit ? rows[rows.length - 1]!.id : null,
  };
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
    current_shard_id?: number;
  },
) {
  const db = ctx.global;
  await assertOrgExists(db, input.orgId);
  if (input.current_shard_id !== undefined) await assertOpenShard(ctx, input.current_shard_id);
  const at = nowIso();
  const changes: OrganizationChanges = {};
  const audited: Record<string, unknown> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.stripe_account_id !== undefined) changes.stripe_account_id = input.stripe_account_id;
  if (input.platform_fee_bps !== undefined) changes.platform_fee_bps = input.platform_fee_bps;
  // reminder defaults (docs/consumer-signing.md) for the organization's envelopes that set none
  if (input.reminder_after_days !== undefined) changes.reminder_after_days = input.reminder_after_days;
  if (input.reminder_every_days !== undefined) changes.reminder_every_days = input.reminder_every_days;
  if (input.embed_frame_ancestors !== undefined) {
    const origins = normalizeOrigins(input.embed_frame_ancestors ?? []);
    changes.embed_frame_ancestors = storedOrigins(origins);
    audited.embed_frame_ancestors = origins;
  }
  // a body that only moves the shard records only the move
  if (Object.keys(changes).length > 0 || input.current_shard_id === undefined) {
    await commitWithOrgAudit(db, { orgId: input.orgId, action: "org.updated", actor: ctx.actor, data: { ...changes, ...audited }, at }, [
      organizationUpdate(db, input.orgId, changes, at),
    ]);
  }
  if (input.current_shard_id !== undefined) await moveOrg(ctx, { orgId: input.orgId, to: input.current_shard_id });
  return getOrg(ctx, { orgId: input.orgId });
}

/**
 * Moves where the organization's new envelopes go (docs/decisions/shards.md). Global side first, one batch: the
 * organization's anchor goes on the new shard first; then, in one global batch, the new shard (and the
 * one it leaves) join the organization's set (`org_shards`, with `current_shard_id`, so a listed set
 * never misses a shard holding its data), the current shard changes, the org chain records it, and
 * every API key's `updated_at` moves forward. Then each
 * key's RateLimiter gets its fresh record (with the new shard); a lost push heals when the limiter
 * reloads its record from D1 (at most a minute later). Its existing records stay where they are.
 * Moving to the shard it is already on changes nothing.
 */
export async function moveOrg(ctx: RequestContext, input: { orgId: string; to: number }): Promise<void> {
  const db = ctx.global;
  const row = await getOrganizationSettings(db, input.orgId);
  if (!row) throw notFound("Organization");
  const from = row.current_shard_id;
  if (from === input.to) return;
  const at = nowIso();
  // The anchor first: once current_shard_id names the new shard, creates land there and their rows
  // reference it. A crash after it leaves only an unused anchor row.
  await orgAnchorInsert(onShard(ctx, input.to).db, input.orgId, at).run();
  await commitWithOrgAudit(
    db,
    { orgId: input.orgId, action: "org.shard_moved", actor: ctx.actor, data: { from_shard_id: from, to_shard_id: input.to }, at },
    [
      organizationShardUpdate(db, input.orgId, { from, to: input.to, at }),
      // the shard it leaves stays in its set (an organization placed before sharding has no row for it yet)
      orgShardInsert(db, { orgId: input.orgId, shard: from, reason: "placed", at }),
      orgShardInsert(db, { orgId: input.orgId, shard: input.to, reason: "placed", at }),
      apiKeysTouchForOrg(db, input.orgId, at),
    ],
    { guarded: true },
  );
  const keys = await loadKeysOfOrg(db, input.orgId);
  await Promise.all(
    keys.map((k) =>
      rateLimiterFor(ctx.env, k.key_hash)
        .refresh(limiterRecord(k))
        .catch((err: unknown) => console.warn("rate limiter push after a shard move failed; it reloads within a minute", k.id, err)),
    ),
  );
}
