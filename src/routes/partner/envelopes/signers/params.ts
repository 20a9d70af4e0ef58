import { z } from "@hono/zod-openapi";
import { EnvelopeParams } from "../params";

export const SignerParams = EnvelopeParams.extend({
  signer_id: z.string().max(64).openapi({ param: { name: "signer_id", in: "path" }, example: "sgn_4k7q1c8v5b3n6p0r2t4w6y9x2m" }),
});
