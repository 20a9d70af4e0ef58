import { createRoute } from "@hono/zod-openapi";
import type { OrgRouteHandler } from "../../../../lib/hono";
import { dataOf, ERROR_CODES_KEY, jsonContent } from "../../../../lib/openapi";
import { getPoolManifest, getPoolReceipt, getPoolView, POOL_RECEIPT_ERRORS } from "../../../../services/pools/read-pool";
import { PoolManifestSchema, PoolParams, PoolReceiptSchema, PoolSchema } from "../../../../services/pools/schema";
import { partnerRoute } from "../../common";

export const getRoute = createRoute(
  partnerRoute(
    "vault:read",
    {
      method: "get",
      operationId: "getVaultPool",
      path: "/partner/vault/pools/{pool_id}",
      summary: "A pool of records, with its progress",
      description: "To either organization of the pool; 404 to anyone else. An accepted pool's `progress` counts the records moved so far.",
      request: { params: PoolParams },
      responses: { 200: jsonContent(dataOf(PoolSchema), "The pool") },
    },
    [404],
  ),
);
export const getHandler: OrgRouteHandler<typeof getRoute> = async (c) => c.json({ data: await getPoolView(c.var.ctx, { poolId: c.req.valid("param").pool_id }) }, 200);

export const manifestRoute = createRoute(
  partnerRoute(
    "vault:read",
    {
      method: "get",
      operationId: "getVaultPoolManifest",
      path: "/partner/vault/pools/{pool_id}/manifest",
      summary: "A pool's manifest",
      description: "`data`: `[{ vault_id, document_hash }]` of every record, sorted by `vault_id`; `data` as RFC 8785 canonical JSON hashes (SHA-256, hex) to the pool's `manifest_sha256`. To either organization; 404 to anyone else.",
      request: { params: PoolParams },
      responses: { 200: jsonContent(PoolManifestSchema, "The manifest") },
    },
    [404],
  ),
);
export const manifestHandler: OrgRouteHandler<typeof manifestRoute> = async (c) => c.json({ data: await getPoolManifest(c.var.ctx, { poolId: c.req.valid("param").pool_id }) }, 200);

export const receiptRoute = createRoute(
  partnerRoute(
    "vault:read",
    {
      method: "get",
      operationId: "getVaultPoolReceipt",
      [ERROR_CODES_KEY]: POOL_RECEIPT_ERRORS,
      path: "/partner/vault/pools/{pool_id}/receipt",
      summary: "A sealed receipt of an accepted pool",
      description:
        "Once every record of an accepted pool moved: a compact JWS by the service's seal key (header `x5c`, its certificate chain) over `{ pool_id, manifest_sha256, kind, from, to, accepted_at, count, control_signature? }`, `control_signature` the receiver's `{ kid, jws }` when it signed its acceptance. Before: 409 `pool_not_completed`. To either organization; 404 to anyone else; 503 when the seal is not configured.",
      request: { params: PoolParams },
      responses: { 200: jsonContent(dataOf(PoolReceiptSchema), "The receipt") },
    },
    [404, 409, 503],
  ),
);
export const receiptHandler: OrgRouteHandler<typeof receiptRoute> = async (c) => c.json({ data: await getPoolReceipt(c.var.ctx, { poolId: c.req.valid("param").pool_id }) }, 200);
