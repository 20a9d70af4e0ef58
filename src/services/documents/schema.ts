import { z } from "@hono/zod-openapi";
import { ENVELOPE_EXAMPLE, EnvelopeSchema } from "../envelopes/schema";
import { RESOLVED_FIELD_EXAMPLE, ResolvedFieldSchema } from "../templates/schema";

const { anchor_match: _anchor, ...resolvedByTag } = RESOLVED_FIELD_EXAMPLE;
const TAG_FIELD_EXAMPLE = { ...resolvedByTag, placement_mode: "tag", value: null };

export const EnvelopeFieldSchema = ResolvedFieldSchema.extend({
  value: z.string().nullable().openapi({ description: "The prefilled value (prefilled_data by field name), else the default" }),
}).openapi("EnvelopeField", { example: TAG_FIELD_EXAMPLE });

export const EnvelopeDocumentResponse = EnvelopeSchema.extend({
  document: z.object({ sha256: z.string(), size_bytes: z.int(), page_count: z.int() }),
  fields: z.array(EnvelopeFieldSchema).openapi({ description: "Fields placed by the document's embedded tags" }),
}).openapi("EnvelopeWithDocument", {
  example: {
    ...ENVELOPE_EXAMPLE,
    document: { sha256: "9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c0b2d4f6e8a0c2e4b6d8f0a1c3e5b7d9f", size_bytes: 184320, page_count: 4 },
    fields: [TAG_FIELD_EXAMPLE],
  },
});
