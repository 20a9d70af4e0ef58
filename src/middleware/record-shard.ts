import { createMiddleware } from "hono/factory";
import { onShardOf } from "../lib/context";
import type { AppEnv } from "../lib/hono";
import { isShardTagged } from "../lib/shards";

/**
 * Path parameters that name a per-envelope record (docs/decisions/shards.md 2): the record's id names
 * its shard, so the request works on that shard with no lookup. An untagged id (issued before
 * sharding) names shard 1. `template_id` names a shard only when tagged (a builder working copy); an
 * untagged template is the organization's, in the global database.
 */
const RECORD_PARAMS = ["envelope_id", "vault_id", "batch_id", "delivery_id", "slug"] as const;

/**
 * Runs first on every route (routes/define.ts): when the path names a record, the context's shard is
 * that record's (`recordShard`), and the surface's auth middleware does not replace it with the
 * organization's current shard. Otherwise nothing changes here.
 */
export const recordShard = createMiddleware<AppEnv>(async (c, next) => {
  const params = c.req.param() as Record<string, string | undefined>;
  let id: string | undefined;
  for (const name of RECORD_PARAMS) if ((id = params[name])) break;
  if (!id && params.template_id && isShardTagged(params.template_id)) id = params.template_id;
  if (id) c.set("ctx", onShardOf(c.var.ctx, id));
  await next();
});
