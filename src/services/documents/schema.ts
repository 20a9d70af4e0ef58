import { z } from "@hono/zod-openapi";
import { EnvelopeSchema } from "../envelopes/schema";
import { ResolvedFieldSchema } from "../templates/schema";

export const EnvelopeFieldSchema = ResolvedFieldSchema.extend({
  value: z.string().nullable().openapi({ description: "The prefilled value (prefilled_data by field name), else the default" }),
}).openapi("EnvelopeField");

export const EnvelopeDocumentResponse = EnvelopeSchema.extend({
  document: z.object({ sha256: z.string(), size_bytes: z.int(), page_count: z.int() }),
  fields: z.array(EnvelopeFieldSchema).openapi({ description: "Fields placed by the document's embedded tags" }),
}).openapi("EnvelopeWithDocument");
