import { createRoute, z } from "@hono/zod-openapi";
import type { AppRouteHandler } from "../../../lib/hono";
import { jsonContent } from "../../../lib/openapi";
import { ShardSchema } from "../../../services/operator/schema";
import { listShards } from "../../../services/shards/registry";
import { operatorRoute } from "../common";

export const route = createRoute(
  operatorRoute({
    method: "get",
    operationId: "listShards",
    path: "/operator/shards",
    summary: "The shards: state, organizations placed and envelopes stored",
    description:
      "Every shard this deployment binds (`SHARD_<n>`) or has registered, ascending. A bound shard never opened is `closed`. New organizations are placed on the open shard with the fewest envelopes.",
    responses: { 200: jsonContent(z.object({ data: z.array(ShardSchema) }), "The shards") },
  }),
);

export const handler: AppRouteHandler<typeof route> = async (c) => c.json({ data: await listShards(c.var.ctx) }, 200);
