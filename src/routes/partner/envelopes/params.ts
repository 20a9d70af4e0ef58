import { z } from "@hono/zod-openapi";

export const EnvelopeParams = z.object({
  envelope_id: z.string().max(64).openapi({ param: { name: "envelope_id", in: "path" }, example: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y" }),
});
