import { createRoute } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { dataOf, jsonBody, jsonContent } from "../../../lib/openapi";
import { nowIso } from "../../../lib/time";
import { PatchShardBody, ShardIdParams, ShardSchema } from "../../../services/operator/schema";
import { setShardState } from "../../../services/shards/registry";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute(
    {
      method: "patch",
      operationId: "updateShard",
      path: "/operator/shards/{shard_id}",
      summary: "Open or close a shard",
      description:
        "`open`: new organizations may be placed on it and organizations moved to it. `closed`: nothing new lands there; its records are still read, listed and swept. The first call registers a newly bound shard. A shard this deployment does not bind: 404.",
      request: { params: ShardIdParams, body: jsonBody(PatchShardBody) },
      responses: { 200: jsonContent(dataOf(ShardSchema), "The shard") },
    },
    [404],
  ),
);

export const handler: AppRouteHandler<typeof route> = async (c) =>
  c.json({ data: await setShardState(c.var.ctx, { shard: c.req.valid("param").shard_id, state: c.req.valid("json").state, at: nowIso() }) }, 200);
