import { unprocessable } from "../../lib/errors";
import type { GlobalDb } from "../../lib/shards";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import type { ApiIssue } from "../../lib/validation";
import { signingProvider, viaProvider } from "../../providers/signing";
import { commitWithOrgAudit } from "../audit/org-chain";
import type { OrgContext, RequestContext } from "../../lib/context";
import { listTemplatesByIds, type TemplateRow } from "../templates/repository";
import { instanceFor } from "../templates/schema";
import { getPackage, packageDetail, packageInsert, packageItemInserts, packageItemsDelete, packageUpdate, type PackageItemRow, type PackageRow } from "./repository";
import type { CreatePackageInput, UpdatePackageInput } from "./schema";

/** The member templates, in the order given: each a live template of the organization, none twice. */
async function memberTemplates(db: GlobalDb, orgId: string, ids: string[]): Promise<TemplateRow[]> {
  const byId = new Map((await listTemplatesByIds(db, orgId, ids)).map((t) => [t.id, t]));
  const issues: ApiIssue[] = [];
  ids.forEach((id, i) => {
    const t = byId.get(id);
    const path = ["template_ids", i];
    if (ids.indexOf(id) !== i) issues.push({ code: "invalid_value", expected: "each template once", received: id, path, message: `Template ${id} is listed twice` });
    else if (!t) issues.push({ code: "invalid_value", expected: "a template of this organization", received: id, path, message: "Template not found" });
    else if (t.deleted_at) issues.push({ code: "invalid_value", expected: "a template that is not deleted", received: id, path, message: `Template ${id} is deleted` });
  });
  if (issues.length) throw unprocessable("Validation failed", issues);
  return ids.map((id) => byId.get(id)!);
}

/**
 * Works out the package's KBA flag and each member's counterpart. In a KBA package every member must
 * live in the KBA (`cloud`) account: members that are not KBA templates are copied there by the
 * provider (a copy the package already had is reused). A copy that fails is the spec's 502.
 */
async function deriveItems(ctx: RequestContext, members: TemplateRow[], previous: PackageItemRow[]) {
  const kbaRequired = members.some((t) => t.kba_required === 1);
  const instance = instanceFor(kbaRequired);
  const provider = signingProvider(ctx.env);
  const items = [];
  for (const t of members) {
    let providerTemplateId = t.provider_template_id;
    if (t.provider_instance !== instance) {
      const reuse = previous.find((p) => p.template_id === t.id && p.provider_instance === instance);
      providerTemplateId =
        reuse?.provider_template_id ??
        (
          await viaProvider(`template ${t.id} could not be copied to the ${instance} (KBA) signing account`, () =>
            provider.copyTemplate({ from: t.provider_instance, providerTemplateId: t.provider_template_id, to: instance }),
          )
        ).providerTemplateId;
    }
    items.push({ template_id: t.id, name: t.name, kba_required: t.kba_required, provider_instance: instance, provider_template_id: providerTemplateId, deleted_at: null });
  }
  return { kbaRequired, instance, items };
}

/** POST /document-packages: `kba_required` and `provider_instance` are derived from the members. */
export async function createPackage(ctx: OrgContext, input: { body: CreatePackageInput }) {
  const db = ctx.global;
  const members = await memberTemplates(db, ctx.orgId, input.body.template_ids);
  const { kbaRequired, instance, items } = await deriveItems(ctx, members, []);
  const at = nowIso();
  const pkg: PackageRow = { id: newId("package"), org_id: ctx.orgId, name: input.body.name, kba_required: kbaRequired ? 1 : 0, provider_instance: instance, created_at: at, updated_at: at, deleted_at: null };
  await commitWithOrgAudit(db, { orgId: ctx.orgId, action: "package.created", actor: ctx.actor, data: { package_id: pkg.id, template_ids: input.body.template_ids, kba_required: kbaRequired }, at }, [
    packageInsert(db, pkg),
    ...packageItemInserts(db, ctx.orgId, pkg.id, items),
  ]);
  return packageDetail(pkg, items.map((item, i) => ({ ...item, position: i + 1 })));
}

/** PATCH /document-packages/:id: a new member list replaces the old one and everything is derived again. */
export async function updatePackage(ctx: OrgContext, input: { packageId: string; body: UpdatePackageInput }) {
  const db = ctx.global;
  const { pkg, items: previous } = await getPackage(db, ctx.orgId, input.packageId);
  const ids = input.body.template_ids ?? previous.map((i) => i.template_id);
  const members = await memberTemplates(db, ctx.orgId, ids);
  const { kbaRequired, instance, items } = await deriveItems(ctx, members, previous);
  const at = nowIso();
  const next: PackageRow = { ...pkg, name: input.body.name ?? pkg.name, kba_required: kbaRequired ? 1 : 0, provider_instance: instance, updated_at: at };
  await commitWithOrgAudit(db, { orgId: ctx.orgId, action: "package.updated", actor: ctx.actor, data: { package_id: pkg.id, ...input.body, kba_required: kbaRequired }, at }, [
    packageUpdate(db, next),
    packageItemsDelete(db, pkg.id),
    ...packageItemInserts(db, ctx.orgId, pkg.id, items),
  ]);
  return packageDetail(next, items.map((item, i) => ({ ...item, position: i + 1 })));
}
