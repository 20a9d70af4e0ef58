import { z } from "@hono/zod-openapi";
import { Timestamp } from "../envelopes/schema";
import { HoldSchema } from "../control/record-schema";

// Retention, legal holds and destruction as the API documents them (docs/control.md "Retention", "Legal holds").

export const RetentionBody = z
  .object({
    retain_years_after_close: z.int().min(1).max(50).default(7).openapi({
      description: "Years a closed record (paid off, papered out) is kept after it closes: its `retain_until` is set at close from this value",
      example: 7,
    }),
    auto_destroy: z.boolean().default(false).openapi({ description: "Destroy the records the organization controls once their `retain_until` passes (by the cron), unless a legal hold keeps them" }),
  })
  .openapi("RetentionPolicyBody");

export const RetentionSchema = z
  .object({
    org_id: z.string(),
    retain_years_after_close: z.int().min(1).max(50),
    auto_destroy: z.boolean(),
    updated_at: Timestamp.nullable().openapi({ description: "When an admin last saved the policy; null: the defaults, never saved" }),
  })
  .openapi("RetentionPolicy", { example: { org_id: "org_2b4d6f8h0j2k4m6p8r0t2v4x6z", retain_years_after_close: 7, auto_destroy: false, updated_at: null } });

export type RetentionPolicy = z.infer<typeof RetentionSchema>;

export const HoldBody = z
  .object({
    reason: z.string().trim().min(1).max(500).openapi({ example: "Litigation: Smith v. Lakeside Motors" }),
    reference: z.string().trim().min(1).max(200).optional().openapi({ example: "Case 26-cv-0412" }),
  })
  .openapi("VaultHoldBody");

export const HoldParams = z.object({
  vault_id: z
    .string()
    .max(64)
    .openapi({ param: { name: "vault_id", in: "path" }, example: "vlt_4d2k8m1q7c9v3b5n6p0r2t4w6y" }),
  hold_id: z
    .string()
    .max(64)
    .openapi({ param: { name: "hold_id", in: "path" }, example: "vhd_1_4d2k8m1q7c9v3b5n6p0r2t4w6y" }),
});

export const ReleasedHoldSchema = HoldSchema.extend({ released_at: Timestamp.openapi({ description: "When it was released" }) }).openapi("VaultHoldReleased");
