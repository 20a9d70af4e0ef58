import { z } from "@hono/zod-openapi";
import { FIELD_TYPES, PLACEMENT_MODES, PROVIDER_INSTANCES } from "../../providers/signing/interface";
import { ENVELOPE_EXAMPLE, EnvelopeSchema } from "../envelopes/schema";

// The vocabulary of fields placed on a PDF (areas, placements, resolved fields) lives here, below templates/:
// documents/ places the fields (place-fields.ts, tags.ts, ingest-pdf.ts), templates/ stores them and
// re-exports this vocabulary from its schema.ts. The field and instance types are the signing provider's
// (it stores the fields); re-exported here for the services.
export { FIELD_TYPES, PLACEMENT_MODES, PROVIDER_INSTANCES };
export type { FieldType, PlacementMode, ProviderInstance, ResolvedField } from "../../providers/signing/interface";

/** Types whose value is one of the field's `options`. */
export const CHOICE_TYPES = ["select", "radio"] as const;
export const isChoiceType = (type: string): boolean => (CHOICE_TYPES as readonly string[]).includes(type);
export const MAX_OPTIONS = 50;
export const MAX_OPTION_LENGTH = 200;

/** What an `attachment` field may accept (docs/decisions/attachments.md); none listed: all of them. */
export const ATTACHMENT_TYPES = ["application/pdf", "image/jpeg", "image/png"] as const;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];

/** Rounding slack when checking that an area ends on the page (x + w <= 1). */
const EPSILON = 1e-9;

const Fraction = z.number().min(0).max(1);
const Extent = z.number().gt(0).max(1);

export const AreaSchema = z
  .strictObject({
    page: z.int().min(1).max(100_000).openapi({ description: "1-based page number" }),
    x: Fraction.openapi({ description: "left edge, fraction of the page width" }),
    y: Fraction.openapi({ description: "top edge, fraction of the page height (y grows downward)" }),
    w: Extent.openapi({ description: "width, fraction of the page width" }),
    h: Extent.openapi({ description: "height, fraction of the page height" }),
  })
  .superRefine((a, ctx) => {
    if ([a.x, a.y, a.w, a.h].some((v) => typeof v !== "number" || v < 0 || v > 1)) return; // reported on the value itself
    if (a.x + a.w > 1 + EPSILON) ctx.addIssue({ code: "custom", path: ["w"], message: `The area runs off the page: x + w = ${round(a.x + a.w)} > 1` });
    if (a.y + a.h > 1 + EPSILON) ctx.addIssue({ code: "custom", path: ["h"], message: `The area runs off the page: y + h = ${round(a.y + a.h)} > 1` });
  })
  .openapi("Area", { example: { page: 1, x: 0.1, y: 0.8, w: 0.3, h: 0.05 } });
export type AreaInput = z.infer<typeof AreaSchema>;

const round = (n: number) => Math.round(n * 1e6) / 1e6;

const AbsolutePlacement = z
  .strictObject({
    mode: z.literal("absolute"),
    areas: z.array(AreaSchema).min(1).max(100).openapi({ description: "Repeat to place the field on several pages" }),
  })
  .openapi("AbsolutePlacement");

const AnchorPlacement = z
  .strictObject({
    mode: z.literal("anchor"),
    anchor_text: z.string().trim().min(1).max(500).openapi({ description: "Searched case-insensitively, whitespace-normalized, in the PDF text layer" }),
    occurrence: z.int().min(1).max(100_000).default(1).openapi({ description: "1 = first match in document order; beyond the matches: 422" }),
    page: z.int().min(1).max(100_000).optional().openapi({ description: "Search only this page (1-based)" }),
    offset_x: z.number().min(-1).max(1).default(0).openapi({ description: "From the anchor's top-left, fraction of the page width (negative: left of it)" }),
    offset_y: z.number().min(-1).max(1).default(0).openapi({ description: "From the anchor's top-left, fraction of the page height (negative: above it)" }),
    w: Extent.openapi({ description: "width, fraction of the page width" }),
    h: Extent.openapi({ description: "height, fraction of the page height" }),
  })
  .openapi("AnchorPlacement");

export const TemplateFieldInputSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100).openapi({ description: "Display name; unique within the template; prefilled_data keys match it" }),
    type: z.enum(FIELD_TYPES),
    role: z.string().trim().min(1).max(100).openapi({ description: "Submitter role" }),
    required: z.boolean().default(false),
    readonly: z.boolean().default(false),
    default_value: z.string().max(10_000).optional().openapi({ description: "Prefill; not allowed on signature and initials fields; one of `options` for select and radio" }),
    options: z
      .array(z.string().trim().min(1).max(MAX_OPTION_LENGTH))
      .min(1)
      .max(MAX_OPTIONS)
      .optional()
      .openapi({
        description:
          "The choices of a `select` or `radio` field (required for them, refused on other types): 1 to 50 unique strings of 1 to 200 characters (trimmed). A radio is placed with one area (its choices drawn inside it) or one area per option, in the same order.",
        example: ["Monthly", "Quarterly", "Yearly"],
      }),
    accept: z
      .array(z.enum(ATTACHMENT_TYPES))
      .min(1)
      .max(ATTACHMENT_TYPES.length)
      .optional()
      .openapi({
        description:
          "An `attachment` field's accepted file types (refused on other types): any of `application/pdf`, `image/jpeg`, `image/png`; default all three. The signer uploads one file of at most 10 MB, checked by its bytes",
        example: ["image/jpeg", "image/png"],
      }),
    placement: z.discriminatedUnion("mode", [AbsolutePlacement, AnchorPlacement]),
  })
  .openapi("TemplateField", {
    example: {
      name: "Buyer signature",
      type: "signature",
      role: "buyer",
      required: true,
      placement: { mode: "anchor", anchor_text: "Buyer signature", occurrence: 1, offset_y: -0.03, w: 0.3, h: 0.04 },
    },
  });
export type TemplateFieldInput = z.infer<typeof TemplateFieldInputSchema>;

export const TemplateFieldsInputSchema = z.array(TemplateFieldInputSchema).max(500);

const AreaOut = z.object({ page: z.int(), x: z.number(), y: z.number(), w: z.number(), h: z.number() });

export const RESOLVED_FIELD_EXAMPLE = {
  name: "Buyer signature",
  type: "signature",
  role: "buyer",
  required: true,
  readonly: false,
  default_value: null,
  options: null,
  placement_mode: "anchor",
  areas: [{ page: 2, x: 0.118, y: 0.684, w: 0.3, h: 0.04 }],
  anchor_match: { page: 2, x: 0.118, y: 0.714, w: 0.171, h: 0.014 },
};

export const ResolvedFieldSchema = z
  .object({
    name: z.string(),
    type: z.enum(FIELD_TYPES),
    role: z.string(),
    required: z.boolean(),
    readonly: z.boolean(),
    default_value: z.string().nullable(),
    options: z
      .array(z.string())
      .nullable()
      .openapi({ description: "select and radio: the choices, in order (a radio with one area per option places `options[i]` at `areas[i]`); attachment: the accepted MIME types; null for other types" }),
    placement_mode: z.enum(PLACEMENT_MODES).openapi({ description: "`tag` for fields placed by an embedded tag" }),
    areas: z.array(AreaOut),
    anchor_match: AreaOut.optional().openapi({ description: "Anchor fields: the rectangle of the matched text" }),
  })
  .openapi("ResolvedField", { example: RESOLVED_FIELD_EXAMPLE });

// ---- the envelope document route ----

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
