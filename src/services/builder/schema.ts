import { z } from "@hono/zod-openapi";
import { Timestamp } from "../envelopes/schema";
import { PROVIDER_INSTANCES, ResolvedFieldSchema } from "../templates/schema";

/** The most templates one builder session merges (`template_ids`). */
export const MAX_MERGED_TEMPLATES = 20;

const Id = z.string().min(1).max(64);

/**
 * The editor session of spec 4.7. List lengths and combinations are checked by the service, because
 * the spec answers them with 400 (invalid id lists), not with the 422 of a body that fails its schema.
 */
/** `required` with the names also under `properties`, as schema linters want of every subschema. */
const has = (...names: string[]) => ({ required: names, properties: Object.fromEntries(names.map((n) => [n, {}])) });

export const OpenBuilderSessionBody = z
  .object({
    envelope_id: Id.optional(),
    batch_id: Id.optional().openapi({ description: "A bulk-send batch (draft or ready): clones, merges or starts its master template; without a source, the batch's own source is used" }),
    template_id: Id.optional(),
    template_name: z.string().trim().min(1).max(200).optional().openapi({ description: "Name of the working document" }),
    package_id: Id.optional(),
    package_template_ids: z.array(Id).max(100).optional().openapi({ minItems: 1, uniqueItems: true, description: "With package_id: members to keep (package order; at least one, no repeats)" }),
    template_ids: z.array(Id).max(100).optional().openapi({ minItems: 2, maxItems: MAX_MERGED_TEMPLATES, uniqueItems: true, description: `2 to ${MAX_MERGED_TEMPLATES} templates merged in this order, no repeats; replaces template_id/package_id` }),
    kba_required: z.boolean().optional().openapi({ description: "Only for a new document (no template_id, package_id or template_ids)" }),
  })
  // the combinations resolve-sources.ts refuses (400), written into the schema so that a request the
  // document accepts is never refused for its shape
  .openapi("OpenBuilderSession", {
    oneOf: [
      { title: "On an envelope", ...has("envelope_id"), not: { ...has("batch_id") } },
      { title: "On a bulk-send batch", ...has("batch_id"), not: { anyOf: [{ ...has("envelope_id") }, { ...has("template_ids") }, { ...has("package_template_ids") }] } },
    ],
    allOf: [
      { not: { ...has("template_id", "package_id") }, description: "template_id and package_id are two sources: send one" },
      { not: { ...has("template_ids"), anyOf: [{ ...has("template_id") }, { ...has("package_id") }] }, description: "template_ids replaces template_id and package_id" },
      { not: { ...has("kba_required"), anyOf: [{ ...has("template_id") }, { ...has("package_id") }, { ...has("template_ids") }] }, description: "kba_required only for a new document" },
      { not: { ...has("package_template_ids"), not: { ...has("package_id") } }, description: "package_template_ids needs package_id" },
    ],
    example: { envelope_id: "env_9x2k4m7q1c8v5b3n6p0r2t4w6y", template_ids: ["tmpl_4h8j2k6m0p3r7t1v5x9z2b4d6f", "tmpl_7q2w9e4r1t6y3u8i5o0p2a4s6d"] } });
export type OpenBuilderSessionInput = z.infer<typeof OpenBuilderSessionBody>;

export const SOURCE_KINDS = ["new", "template", "package", "templates"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

export const BuilderSessionSchema = z
  .object({
    session_id: z.string(),
    envelope_id: z.string().nullable().openapi({ description: "null for a batch session" }),
    batch_id: z.string().optional().openapi({ description: "With batch_id: the batch whose master template this is" }),
    roles: z.array(z.string()).optional().openapi({ description: "With batch_id: the master template's parties (field roles), in order" }),
    template_id: z.string().openapi({ description: "The working template holding the envelope's document and fields" }),
    template_name: z.string(),
    source: z.object({ kind: z.enum(SOURCE_KINDS), template_ids: z.array(z.string()), package_id: z.string().nullable() }),
    continued: z.boolean().openapi({ description: "true when an earlier session's working document was reopened" }),
    document_source: z.enum(["template", "package", "new"]),
    kba_required: z.boolean(),
    provider_instance: z.enum(PROVIDER_INSTANCES),
    provider_template_id: z.int(),
    page_count: z.int().nullable().openapi({ description: "null for a new document not uploaded yet" }),
    fields: z.array(ResolvedFieldSchema),
    created_at: Timestamp,
    expires_at: Timestamp,
  })
  .openapi("BuilderSession");
