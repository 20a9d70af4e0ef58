import { badRequest } from "../../lib/errors";
import { getPackage } from "../packages/repository";
import type { GlobalDb } from "../../lib/shards";
import { getTemplate, listTemplatesByIds, templateDb, type TemplateRow } from "../templates/repository";
import type { OpenBuilderSessionInput, SourceKind } from "./schema";
import type { OrgContext } from "../../lib/context";

export type BuilderSource = { kind: SourceKind; templates: TemplateRow[]; packageId: string | null; kbaRequired: boolean };

import { MAX_MERGED_TEMPLATES } from "./schema";
export { MAX_MERGED_TEMPLATES };

function firstRepeat(ids: string[]): string | undefined {
  return ids.find((id, i) => ids.indexOf(id) !== i);
}

/** Templates of the org by id, in the order asked; unknown and deleted ones are a 400 naming the list. */
async function liveTemplates(db: GlobalDb, orgId: string, ids: string[], list: string): Promise<TemplateRow[]> {
  const byId = new Map((await listTemplatesByIds(db, orgId, ids)).map((t) => [t.id, t]));
  for (const id of ids) {
    const t = byId.get(id);
    if (!t) throw badRequest(`${list} includes ${id}, which is not a template of this organization`, { field: list, template_id: id });
    if (t.deleted_at) throw badRequest(`${list} includes the deleted template ${id}`, { field: list, template_id: id });
  }
  return ids.map((id) => byId.get(id)!);
}

function requireDocuments(templates: TemplateRow[], list: string) {
  const empty = templates.find((t) => !t.document_key);
  if (empty) throw badRequest(`${list} includes ${empty.id}, which has no document to merge`, { field: list, template_id: empty.id });
}

/**
 * Checks the source fields of a builder-session request against every rule of spec 4.7 and loads the
 * templates to work from, in order. The combinations and id lists are 400; an unknown single
 * template or package is 404 (a batch's own source is filled in by open-batch-session.ts).
 */
export async function resolveSources(ctx: OrgContext, input: { body: OpenBuilderSessionInput }): Promise<BuilderSource> {
  // the sources are the organization's templates and packages (global); a single template_id may
  // also name a builder working copy (on its shard)
  const { global: db, orgId } = ctx;
  const { body } = input;
  if (body.envelope_id && body.batch_id) throw badRequest("envelope_id and batch_id are mutually exclusive: send one of them");
  if (!body.envelope_id && !body.batch_id) throw badRequest("envelope_id or batch_id is required");
  if (body.batch_id && body.package_template_ids) throw badRequest("package_template_ids cannot be used with batch_id");
  if (body.batch_id && body.template_ids) throw badRequest("template_ids cannot be used with a batch");
  if (body.template_ids && (body.template_id || body.package_id)) throw badRequest("template_ids replaces template_id and package_id: send only one source");
  if (body.template_id && body.package_id) throw badRequest("template_id and package_id are two sources: send only one");
  if (body.package_template_ids && !body.package_id) throw badRequest("package_template_ids needs package_id");
  if (body.kba_required !== undefined && (body.template_id || body.package_id || body.template_ids)) {
    throw badRequest("kba_required can only be chosen for a new document: with a template or package it is derived from them");
  }

  if (body.template_ids) {
    const ids = body.template_ids;
    if (ids.length < 2 || ids.length > MAX_MERGED_TEMPLATES) throw badRequest(`template_ids merges 2 to ${MAX_MERGED_TEMPLATES} templates; got ${ids.length}`);
    const repeated = firstRepeat(ids);
    if (repeated) throw badRequest(`template_ids repeats ${repeated}`, { field: "template_ids", template_id: repeated });
    const templates = await liveTemplates(db, orgId, ids, "template_ids");
    requireDocuments(templates, "template_ids");
    return { kind: "templates", templates, packageId: null, kbaRequired: templates.some((t) => t.kba_required === 1) };
  }
  if (body.package_id) {
    const { items } = await getPackage(db, orgId, body.package_id);
    let kept = items;
    if (body.package_template_ids) {
      const wanted = body.package_template_ids;
      if (wanted.length === 0) throw badRequest("package_template_ids must keep at least one template");
      const repeated = firstRepeat(wanted);
      if (repeated) throw badRequest(`package_template_ids repeats ${repeated}`, { field: "package_template_ids", template_id: repeated });
      const stranger = wanted.find((id) => !items.some((i) => i.template_id === id));
      if (stranger) throw badRequest(`package_template_ids includes ${stranger}, which is not in package ${body.package_id}`, { field: "package_template_ids", template_id: stranger });
      kept = items.filter((i) => wanted.includes(i.template_id)); // package order, whatever the order asked
    }
    const list = body.package_template_ids ? "package_template_ids" : "the package";
    const templates = await liveTemplates(db, orgId, kept.map((i) => i.template_id), list);
    if (templates.length > 1) requireDocuments(templates, list);
    return { kind: "package", templates, packageId: body.package_id, kbaRequired: templates.some((t) => t.kba_required === 1) };
  }
  if (body.template_id) {
    const template = await getTemplate(templateDb(ctx, body.template_id), orgId, body.template_id);
    return { kind: "template", templates: [template], packageId: null, kbaRequired: template.kba_required === 1 };
  }
  return { kind: "new", templates: [], packageId: null, kbaRequired: body.kba_required ?? false };
}
