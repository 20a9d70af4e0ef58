import { z } from "@hono/zod-openapi";

export const EndpointParams = z.object({
  endpoint_id: z.string().max(64).openapi({ param: { name: "endpoint_id", in: "path" }, example: "whep_4k9m2x7q1c8v5b3n6p0r2t4w6y" }),
});

export const DeliveryParams = z.object({
  delivery_id: z.string().max(64).openapi({ param: { name: "delivery_id", in: "path" }, example: "wdel_7h3k9m2x4q1c8v5b3n6p0r2t4w" }),
});

/** Every route of spec 4.10 is for organization admins. */
export const TAGS = ["Webhooks"];
