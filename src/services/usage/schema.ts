import { z } from "@hono/zod-openapi";

export const UsageQuery = z.object({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "a month as YYYY-MM")
    .optional()
    .openapi({ param: { name: "month", in: "query" }, description: "The month (UTC) as YYYY-MM; default the current month", example: "2026-11" }),
});

const UsageLine = z.object({
  line_id: z.string(),
  kind: z.string().openapi({ description: "What is billed, e.g. `kba_verification`" }),
  quantity: z.int(),
  unit_cents: z.int(),
  amount_cents: z.int(),
  envelope_id: z.string().nullable(),
  signer_id: z.string().nullable(),
  description: z.string(),
  created_at: z.string(),
});

export const UsageSchema = z
  .object({
    org_id: z.string(),
    month: z.string(),
    currency: z.literal("usd"),
    lines: z.array(UsageLine),
    by_kind: z.record(z.string(), z.object({ quantity: z.int(), amount_cents: z.int() })),
    total_cents: z.int(),
  })
  .openapi("Usage", {
    example: {
      org_id: "org_7h2k4m6p8r0t2v4x6z8b0d2f4h",
      month: "2026-11",
      currency: "usd",
      lines: [
        {
          line_id: "use_3n6p0r2t4w6y8a0c2e4g6j8m0p",
          kind: "kba_verification",
          quantity: 1,
          unit_cents: 400,
          amount_cents: 400,
          envelope_id: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y",
          signer_id: "sgn_1c8v5b3n6p0r2t4w6y9x2k4m7q",
          description: "KBA identity verification: jane.doe@example.com, envelope env_9x2k4m7q1c8v5b3n6p0r2t4w6y",
          created_at: "2026-11-23T14:02:11.000Z",
        },
      ],
      by_kind: { kba_verification: { quantity: 1, amount_cents: 400 } },
      total_cents: 400,
    },
  });
