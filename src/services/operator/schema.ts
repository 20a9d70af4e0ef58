import { z } from "@hono/zod-openapi";
import { SCOPES } from "../../lib/scopes";
import { FrameAncestorsInput } from "../embed/frame-ancestors";

export const OrgIdParams = z.object({ org_id: z.string().max(64).openapi({ param: { name: "org_id", in: "path" } }) });
export const KeyIdParams = z.object({ key_id: z.string().max(64).openapi({ param: { name: "key_id", in: "path" } }) });
export const UserIdParams = z.object({ user_id: z.string().max(64).openapi({ param: { name: "user_id", in: "path" } }) });

export const ScopeEnum = z.enum(SCOPES).openapi("Scope");
const Scopes = z
  .array(ScopeEnum)
  .min(1)
  .max(SCOPES.length)
  .refine((s) => new Set(s).size === s.length, { message: "scopes must not repeat" });

export const CreateOrgBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    shard_id: z
      .number()
      .int()
      .min(1)
      .max(9999)
      .optional()
      .describe("Place the organization on this open shard (a large tenant on a shard of its own); omitted: the open shard with the fewest envelopes."),
  })
  .openapi("CreateOrg", { example: { name: "Acme Auto Finance" } });
export const PatchOrgBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    stripe_account_id: z.string().regex(/^acct_[A-Za-z0-9]{1,64}$/).nullable().optional(),
    platform_fee_bps: z.int().min(0).max(10_000).optional(),
    embed_frame_ancestors: FrameAncestorsInput.nullable().optional(),
    reminder_after_days: z
      .int()
      .min(1)
      .max(30)
      .nullable()
      .optional()
      .openapi({ description: "Default days after sending before the first reminder, for envelopes that set none (1 to 30; null: no reminders by default)" }),
    reminder_every_days: z
      .int()
      .min(0)
      .max(30)
      .nullable()
      .optional()
      .openapi({ description: "Default days between later reminders (1 to 30; 0 or null: remind once)" }),
    current_shard_id: z
      .int()
      .min(1)
      .max(9999)
      .optional()
      .openapi({ description: "Moves where the organization's new envelopes go: an open shard (GET /operator/shards). Its existing records stay where they are, still read and swept." }),
  })
  .openapi("PatchOrg", { example: { stripe_account_id: "acct_1Nv0FGQ9RKHgCVdK", platform_fee_bps: 150, embed_frame_ancestors: ["https://dealer.example.com"] } });

export const CreateApiKeyBody = z
  .object({
    scopes: Scopes,
    rate_limit_rpm: z.int().min(1).max(1_000_000).optional(),
    name: z.string().trim().min(1).max(100).optional(),
  })
  .openapi("CreateApiKey", { example: { scopes: ["envelopes:read", "envelopes:write"], rate_limit_rpm: 60, name: "Dealer portal" } });
export const PatchApiKeyBody = z
  .object({
    scopes: Scopes.optional(),
    rate_limit_rpm: z.int().min(1).max(1_000_000).optional(),
    active: z.boolean().optional(),
  })
  .openapi("PatchApiKey", { example: { rate_limit_rpm: 120 } });

export const CreateUserBody = z
  .object({
    email: z.email().max(254),
    name: z.string().trim().min(1).max(200),
    role: z.enum(["admin", "custodian", "member"]),
  })
  .openapi("CreateUser", { example: { email: "ops@acme.example", name: "Olivia Ops", role: "admin" } });

export const AccessTokenBody = z
  .object({
    org_id: z.string().max(64).optional(),
    ttl_seconds: z.int().min(60).max(7 * 86_400).optional(),
  })
  .openapi("CreateAccessToken", { example: { ttl_seconds: 3600 } });

export const CreateCustomerBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    email: z.email().max(254).optional(),
    primary_contact_name: z.string().trim().min(1).max(200).optional(),
  })
  .openapi("CreateCustomer", { example: { name: "Jane Doe", email: "jane.doe@example.com" } });

export const ApiKeySchema = z
  .object({
    key_id: z.string(),
    org_id: z.string(),
    name: z.string().nullable(),
    key_prefix: z.string(),
    scopes: z.array(ScopeEnum),
    rate_limit_rpm: z.int(),
    active: z.boolean(),
    last_used_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("ApiKey");
export type ApiKey = z.infer<typeof ApiKeySchema>;

export const ApiKeyWithSecretSchema = ApiKeySchema.extend({
  api_key: z.string().openapi({ description: "The raw key, shown this once", example: "lk_3f9a0c2e7b4d1f6a8c0e2b4d6f8a0c2e4b6d8f0a" }),
}).openapi("ApiKeyWithSecret");
export type ApiKeyWithSecret = z.infer<typeof ApiKeyWithSecretSchema>;

export const ShardIdParams = z.object({
  // digits only (no "0x1", "1e0" or " 2"): a number as the registry and the bindings spell it
  shard_id: z
    .string()
    .regex(/^[1-9][0-9]{0,3}$/)
    .transform(Number)
    .openapi({ param: { name: "shard_id", in: "path" }, type: "integer", minimum: 1, maximum: 9999, example: 2, description: "The shard's number (binding `SHARD_<n>`)" }),
});

export const ShardStateEnum = z.enum(["open", "closed"]).openapi({ description: "open: new organizations may be placed or moved here; closed: its data is still read and swept, nothing new lands" });

export const PatchShardBody = z.object({ state: ShardStateEnum }).openapi("PatchShard", { example: { state: "open" } });

export const ShardSchema = z
  .object({
    shard_id: z.int(),
    state: ShardStateEnum,
    organizations: z.int().openapi({ description: "Organizations whose current shard this is" }),
    envelopes: z.int().openapi({ description: "Envelopes stored on the shard (its highest envelope rowid; envelopes are never deleted)" }),
  })
  .openapi("Shard");

export const ShardIdField = z.int().openapi({ description: "The organization's current shard: where its new envelopes, customers and batches are stored" });

export const OrgSchema = z
  .object({
    org_id: z.string(),
    name: z.string(),
    stripe_account_id: z.string().nullable(),
    platform_fee_bps: z.int(),
    embed_frame_ancestors: z.array(z.string()).openapi({ description: "Origins allowed to frame the signing page and widgets (CSP frame-ancestors); [] for none" }),
    reminder_after_days: z.int().nullable().openapi({ description: "Default days after sending before the first reminder (null: none by default)" }),
    reminder_every_days: z.int().nullable().openapi({ description: "Default days between later reminders (0 or null: once)" }),
    created_at: z.string(),
    updated_at: z.string(),
    shard_id: ShardIdField,
  })
  .openapi("Organization");
