import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { newShardId } from "../../lib/shards";
import { nowIso } from "../../lib/time";
import { signingProvider, viaProvider } from "../../providers/signing";
import { commitWithOrgAudit } from "../audit/org-chain";
import type { OrgContext } from "../../lib/context";
import type { StoredDocument } from "../documents/ingest-pdf";
import { pageSizesText } from "../documents/repository";
import { insertTemplateFields, templateInsert, type TemplateRow } from "./repository";
import { instanceFor, type ResolvedField } from "./schema";

/** A template to insert in `ctx.orgId`, by `ctx.actor`. */
export type NewTemplate = {
  name: string;
  externalId: string | null;
  kbaRequired: boolean;
  origin: TemplateRow["origin"];
  document: StoredDocument | null;
  fields: ResolvedField[];
  /** the placements as requested, stored beside the resolved fields */
  placements?: unknown[];
};

/**
 * Creates a template: first its counterpart at the signing provider (which assigns the integer
 * `provider_template_id`; a refusal is 502), then the template row, its fields and the org audit
 * entry in one D1 batch. If that batch fails the spec's answer is 500 "template record could not be
 * persisted"; the provider's counterpart is then an orphan nobody references, as it would be at an
 * external provider.
 *
 * The organization's templates are global (`ctx.global`, untagged id, org chain). A builder working
 * copy (origin `builder`) is a row of `ctx.db`, the shard of the envelope or batch it is made for (the
 * caller puts the context there), with an id tagged with that shard; it gets no org-chain entry: the
 * envelope's or batch's own entry that binds it records its id (docs/decisions/shards-built.md).
 */
export async function insertTemplate(ctx: OrgContext, t: NewTemplate): Promise<TemplateRow> {
  const builderCopy = t.origin === "builder";
  const provider = signingProvider(ctx.env);
  const id = builderCopy ? newShardId("template", ctx.shardId) : newId("template");
  const instance = instanceFor(t.kbaRequired);
  const { providerTemplateId } = await viaProvider("the template could not be created", () =>
    provider.createTemplate({ instance, orgId: ctx.orgId, templateId: id, name: t.name, documentKey: t.document?.key ?? null, pageCount: t.document?.pageCount ?? null }),
  );
  if (t.fields.length) {
    await viaProvider("the fields could not be stored", () => provider.setTemplateFields({ instance, providerTemplateId, templateId: id, fields: t.fields }));
  }
  const at = nowIso();
  const row: TemplateRow = {
    id,
    org_id: ctx.orgId,
    name: t.name,
    external_id: t.externalId,
    kba_required: t.kbaRequired ? 1 : 0,
    provider_instance: instance,
    provider_template_id: providerTemplateId,
    origin: t.origin,
    document_key: t.document?.key ?? null,
    document_sha256: t.document?.sha256 ?? null,
    document_size_bytes: t.document?.sizeBytes ?? null,
    page_count: t.document?.pageCount ?? null,
    page_sizes: pageSizesText(t.document?.pageSizes),
    created_at: at,
    updated_at: at,
    deleted_at: null,
  };
  try {
    if (builderCopy) {
      const db = ctx.db;
      await db.batch([templateInsert(db, row), ...insertTemplateFields(db, { templateId: id, orgId: ctx.orgId, fields: t.fields, placements: t.placements, at })]);
    } else {
      const db = ctx.global;
      await commitWithOrgAudit(
        db,
        { orgId: ctx.orgId, action: "template.created", actor: ctx.actor, data: { template_id: id, name: t.name, origin: t.origin, kba_required: t.kbaRequired, fields: t.fields.length }, at },
        [templateInsert(db, row), ...insertTemplateFields(db, { templateId: id, orgId: ctx.orgId, fields: t.fields, placements: t.placements, at })],
      );
    }
  } catch (err) {
    console.error(JSON.stringify({ level: "error", what: "template insert failed", template_id: id, error: String(err) }));
    throw new ApiError(500, "Template record could not be persisted; nothing was created, retry the request");
  }
  return row;
}
