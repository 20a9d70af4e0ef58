import { z } from "@hono/zod-openapi";
import { Timestamp } from "../envelopes/schema";
import { PROVIDER_INSTANCES } from "../templates/schema";

const TemplateIds = z.array(z.string().min(1).max(64)).min(1).max(20).openapi({ description: "Member templates, in order (1 to 20, no repeats)" });

export const CreatePackageBody = z
  .object({ name: z.string().trim().min(1).max(200), template_ids: TemplateIds })
  .openapi("CreateDocumentPackage", { example: { name: "Auto loan closing set", template_ids: ["tmpl_4h8j2k6m0p3r7t1v5x9z2b4d6f", "tmpl_7q2w9e4r1t6y3u8i5o0p2a4s6d"] } });
export type CreatePackageInput = z.infer<typeof CreatePackageBody>;

export const UpdatePackageBody = z
  .strictObject({ name: z.string().trim().min(1).max(200).optional(), template_ids: TemplateIds.optional() })
  .openapi("UpdateDocumentPackage", { example: { template_ids: ["tmpl_4h8j2k6m0p3r7t1v5x9z2b4d6f"] } });
export type UpdatePackageInput = z.infer<typeof UpdatePackageBody>;

const Instance = z.enum(PROVIDER_INSTANCES);

export const DocumentPackageSchema = z
  .object({
    package_id: z.string(),
    name: z.string(),
    kba_required: z.boolean().openapi({ description: "Derived: true if any member requires KBA" }),
    provider_instance: Instance.openapi({ description: "Derived: `cloud` when the package requires KBA" }),
    items: z.array(
      z.object({
        template_id: z.string(),
        name: z.string(),
        position: z.int(),
        kba_required: z.boolean().openapi({ description: "The member template's own flag" }),
        provider_instance: Instance.openapi({ description: "Where the package's copy of the member lives: `cloud` for every member of a KBA package" }),
        provider_template_id: z.int(),
      }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("DocumentPackage");

export const PackageParams = z.object({
  package_id: z.string().max(64).openapi({ param: { name: "package_id", in: "path" }, example: "pkg_4h8j2k6m0p3r7t1v5x9z2b4d6f" }),
});
