import { z } from "@hono/zod-openapi";
import { POOL_STATUSES, TRANSFER_KINDS } from "../../db/schema";
import { POOL_MAX } from "./offer-pool";

// Zod schemas of pools of vaulted records (docs/control.md "Pools").

const POOL_ID_EXAMPLE = "vpl_1_7c1v9b3n5m2k8q4w6e0r2t4y6u";
const HASH_EXAMPLE = "9b1e4c2a7d5f8e0b3c6a9d2f5e8b1c4a7d0f3e6b9c2a5d8f1e4b7c0a3d6f9e2b";

export const PoolParams = z.object({
  pool_id: z.string().max(64).openapi({ param: { name: "pool_id", in: "path" }, example: POOL_ID_EXAMPLE }),
});

export const OfferPoolBody = z
  .object({
    kind: z.enum(TRANSFER_KINDS).openapi({ description: "`assignment`: control of every record passes to the receiver; `pledge`: the receiver holds control, the caller becomes each record's pledgor" }),
    to_org_id: z.string().min(1).max(64).openapi({ description: "The receiving organization (not the caller)", example: "org_5c1k7m3q9c2v8b4n6p0r2t4w6y" }),
    vault_ids: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(POOL_MAX)
      .openapi({ description: `The records (1 to ${POOL_MAX.toLocaleString("en-US")}), each once, each controlled by the caller, active, with no transfer pending`, example: ["vlt_1_4d2k8m1q7c9v3b5n6p0r2t4w6y"] }),
    reference: z.string().min(1).max(500).optional().openapi({ description: "The parties' own reference, kept on the pool and on each record's chain" }),
  })
  .openapi("OfferPool", { example: { kind: "assignment", to_org_id: "org_5c1k7m3q9c2v8b4n6p0r2t4w6y", vault_ids: ["vlt_1_4d2k8m1q7c9v3b5n6p0r2t4w6y", "vlt_2_8f3j6k1m4q7c0v2b5n8p1r4t7w"], reference: "Sale of pool 2026-11" } });

export const PoolSchema = z
  .object({
    pool_id: z.string().openapi({ description: "`vpl_…`" }),
    kind: z.enum(TRANSFER_KINDS),
    from_org_id: z.string(),
    to_org_id: z.string(),
    status: z.enum(POOL_STATUSES).openapi({ description: "`preparing` while its records are being held, `pending` until answered; `accepted`, `rejected`, `cancelled` or `expired` (7 days after the offer)" }),
    reference: z.string().nullable(),
    count: z.number().int().openapi({ description: "The number of records" }),
    manifest_sha256: z.string().openapi({ description: "SHA-256 (hex) of the manifest's `data` as RFC 8785 canonical JSON (GET …/manifest)", example: HASH_EXAMPLE }),
    created_at: z.string(),
    expires_at: z.string().openapi({ description: "7 days after the offer; a pool still pending then becomes `expired`" }),
    settled_at: z.string().nullable().openapi({ description: "When it was accepted, rejected, cancelled or expired" }),
    progress: z
      .object({
        moved: z.number().int().openapi({ description: "Records moved to the receiver so far (an accepted pool)" }),
        remaining: z.number().int(),
        completed_at: z.string().nullable().openapi({ description: "When every record of an accepted pool had moved" }),
      })
      .openapi({ description: "An accepted pool's records move in the background; `completed_at` is set, and `vault.pool_accepted` sent to both parties, once every one has" }),
  })
  .openapi("VaultPool", {
    example: {
      pool_id: POOL_ID_EXAMPLE,
      kind: "assignment",
      from_org_id: "org_2b4d6f8h0j2k4m6p8r0t2v4x6z",
      to_org_id: "org_5c1k7m3q9c2v8b4n6p0r2t4w6y",
      status: "pending",
      reference: "Sale of pool 2026-11",
      count: 2,
      manifest_sha256: HASH_EXAMPLE,
      created_at: "2026-11-28T09:40:00.000Z",
      expires_at: "2026-12-05T09:40:00.000Z",
      settled_at: null,
      progress: { moved: 0, remaining: 0, completed_at: null },
    },
  });

export const PoolManifestSchema = z
  .object({
    data: z.array(z.object({ vault_id: z.string(), document_hash: z.string() })).openapi({ description: "Every record of the pool, sorted by vault_id" }),
  })
  .openapi("VaultPoolManifest", { example: { data: [{ vault_id: "vlt_1_4d2k8m1q7c9v3b5n6p0r2t4w6y", document_hash: HASH_EXAMPLE }] } });

export const PoolReceiptSchema = z
  .object({ jws: z.string().openapi({ description: "Compact JWS by the seal key (header `x5c`: its certificate chain; `typ`: `vault-pool-receipt+jws`)" }) })
  .openapi("VaultPoolReceipt", { example: { jws: "eyJhbGciOiJFUzI1NiIsInR5cCI6InZhdWx0LXBvb2wtcmVjZWlwdCtqd3MiLCJ4NWMiOlsiLi4uIl19.eyJwb29sX2lkIjoidnBsXzFfLi4uIn0.c2lnbmF0dXJl" } });
