import { actingUserId } from "../../lib/actor";
import { apiIssue } from "../../lib/validation";
import { ApiError, conflict } from "../../lib/errors";
import { newShardId, type ShardDb } from "../../lib/shards";
import { addSeconds, nowIso } from "../../lib/time";
import { onShardOf, type OrgContext } from "../../lib/context";
import { discardDocuments } from "../documents/ingest-pdf";
import { insertEnvelopeFields, insertOriginalDocument, pageSizesOf } from "../documents/repository";
import { builderSessionInsert, getLatestSessionSource } from "./repository";
import { bindTemplateStatement, getEnvelope, metadataOf, type LoadedEnvelope } from "../envelopes/repository";
import { applyTransition } from "../envelopes/transition";
import { changeEnvelope } from "../envelopes/commit";
import { insertTemplate } from "../templates/insert-template";
import { findTemplate, listTemplateFields, templateDb, type TemplateRow } from "../templates/repository";
import type { ResolvedField } from "../templates/schema";
import { mergeTemplates } from "./merge-documents";
import { resolveSources, type BuilderSource } from "./resolve-sources";
import type { OpenBuilderSessionInput } from "./schema";

const SESSION_SECONDS = 3600;

export type StoredSource = { kind: BuilderSource["kind"]; template_ids: string[]; package_id: string | null };

export const sourceOf = (s: BuilderSource): StoredSource => ({ kind: s.kind, template_ids: s.templates.map((t) => t.id), package_id: s.packageId });
export const sameSource = (a: StoredSource, b: StoredSource) => a.kind === b.kind && a.package_id === b.package_id && a.template_ids.join() === b.template_ids.join();

/**
 * The working document: a copy of the single source template (same PDF, its fields), a merge of
 * several, or an empty template for a new document. It lives in the instance the KBA flag decides.
 */
export async function buildWorkingTemplate(ctx: OrgContext, input: { source: BuilderSource; name: string }): Promise<{ template: TemplateRow; fields: ResolvedField[] }> {
  const { source } = input;
  const base = { name: input.name, externalId: null, kbaRequired: source.kbaRequired, origin: "builder" as const };
  if (source.templates.length === 0) return { template: await insertTemplate(ctx, { ...base, document: null, fields: [] }), fields: [] };
  if (source.templates.length === 1) {
    const t = source.templates[0]!;
    const fields = await listTemplateFields(templateDb(ctx, t.id), t.id);
    const document = t.document_key ? { key: t.document_key, sha256: t.document_sha256!, sizeBytes: t.document_size_bytes!, pageCount: t.page_count!, pageSizes: pageSizesOf(t.page_sizes) } : null;
    return { template: await insertTemplate(ctx, { ...base, document, fields }), fields };
  }
  const merged = await mergeTemplates(ctx, { templates: source.templates });
  try {
    return { template: await insertTemplate(ctx, { ...base, document: merged.document, fields: merged.fields }), fields: merged.fields };
  } catch (err) {
    await discardDocuments(ctx.env, [merged.document.key]);
    throw err;
  }
}

function defaultName(source: BuilderSource, envelope: LoadedEnvelope): string {
  if (source.templates.length === 1) return source.templates[0]!.name;
  if (source.templates.length > 1) return source.templates.map((t) => t.name).join(" + ").slice(0, 200);
  return envelope.name;
}

/**
 * POST /esign/builder-session: opens the editor on an envelope's document. A pending envelope gets a
 * working template built from the source, and, when that has a PDF, the document and fields are
 * attached (pending -> uploaded) in the same batch as the session. Reopening without a source, or
 * with the same source, continues the same working template. An envelope whose document came from
 * elsewhere (template_id at creation, an upload) is 409; one past `uploaded` is 422.
 */
export async function openBuilderSession(anywhere: OrgContext, input: { body: OpenBuilderSessionInput }) {
  const source = await resolveSources(anywhere, { body: input.body });
  // the envelope's shard: its session, working template and document rows are written there
  const ctx = onShardOf(anywhere, input.body.envelope_id!);
  const db = ctx.db;
  const envelope = await getEnvelope(db, ctx.orgId, input.body.envelope_id!);
  if (envelope.status !== "pending" && envelope.status !== "uploaded") {
    const message = `Cannot open the builder for an envelope with status ${envelope.status}`;
    throw new ApiError(422, message, [apiIssue(["envelope_id"], "an envelope with status pending | uploaded", envelope.status, message, "invalid_status")]);
  }
  const at = nowIso();
  const session = { id: newShardId("builderSession", ctx.shardId), created_at: at, expires_at: addSeconds(at, SESSION_SECONDS) };
  const existing = envelope.template_id ? await findTemplate(templateDb(ctx, envelope.template_id), ctx.orgId, envelope.template_id, { includeDeleted: true }) : null;
  if (existing || envelope.status !== "pending") {
    const last = existing?.origin === "builder"
      ? await getLatestSessionSource(db, envelope.id)
      : null;
    const previous = last ? (JSON.parse(last.source) as StoredSource) : null;
    const sourceless = source.kind === "new" && (input.body.kba_required === undefined || input.body.kba_required === (existing?.kba_required === 1));
    if (!existing || !previous || !(sourceless || sameSource(previous, sourceOf(source)))) {
      throw conflict("The envelope already has its document (from its template, an upload or another builder source); reopen the builder without a source to continue it", {
        template_id: envelope.template_id,
      });
    }
    await db.batch([sessionInsert(db, { orgId: ctx.orgId, userId: actingUserId(ctx.actor) }, session, envelope.id, existing, previous)]);
    return sessionOut(session, envelope.id, existing, previous, true, await listTemplateFields(templateDb(ctx, existing.id), existing.id));
  }

  const { template, fields } = await buildWorkingTemplate(ctx, { source, name: input.body.template_name ?? defaultName(source, envelope) });
  const stored = sourceOf(source);
  const metadata = {
    ...metadataOf(envelope),
    document_source: source.kind === "package" ? "package" : source.kind === "new" ? "new" : "template",
    ...(source.kind === "template" ? { source_template_id: source.templates[0]!.id } : {}),
    builder_source: stored,
  };
  const bind = [
    bindTemplateStatement(db, envelope.id, { templateId: template.id, metadata, kbaRequired: template.kba_required, providerInstance: template.provider_instance }),
    sessionInsert(db, { orgId: ctx.orgId, userId: actingUserId(ctx.actor) }, session, envelope.id, template, stored),
  ];
  const data = { builder_session_id: session.id, template_id: template.id, source: stored };
  if (template.document_key) {
    await applyTransition(ctx, envelope, {
      action: "attach_document",
      data,
      extra: [
        insertOriginalDocument(db, { id: newShardId("document", ctx.shardId), envelopeId: envelope.id, orgId: ctx.orgId, key: template.document_key, sha256: template.document_sha256!, sizeBytes: template.document_size_bytes!, pageCount: template.page_count, pageSizes: template.page_sizes, at }),
        ...insertEnvelopeFields(db, { envelopeId: envelope.id, orgId: ctx.orgId, fields, sourceTemplateId: template.id, at }),
        ...bind,
      ],
    });
  } else {
    // A new document: nothing to attach yet, but the envelope is bound to its working template (and
    // its KBA choice) with an audit entry, committed like any envelope change; it must still be pending.
    await changeEnvelope(ctx, { orgId: ctx.orgId, envelopeId: envelope.id, read: envelope }, async (current) => {
      if (current.status !== "pending") throw conflict(`The envelope is ${current.status}: a builder session binds only a pending envelope`, { status: current.status });
      return { change: { entries: [{ action: "envelope.builder_opened", data }], statements: bind, at }, result: undefined };
    });
  }
  return sessionOut(session, envelope.id, template, stored, false, fields);
}

function sessionInsert(db: ShardDb, input: { orgId: string; userId: string }, session: { id: string; created_at: string; expires_at: string }, envelopeId: string, template: TemplateRow, source: StoredSource) {
  return builderSessionInsert(db, {
    id: session.id,
    org_id: input.orgId,
    envelope_id: envelopeId,
    template_id: template.id,
    source: JSON.stringify(source),
    kba_required: template.kba_required,
    provider_instance: template.provider_instance,
    created_by: input.userId,
    created_at: session.created_at,
    expires_at: session.expires_at,
  });
}

export function sessionOut(session: { id: string; created_at: string; expires_at: string }, envelopeId: string | null, template: TemplateRow, source: StoredSource, continued: boolean, fields: ResolvedField[]) {
  return {
    session_id: session.id,
    envelope_id: envelopeId,
    template_id: template.id,
    template_name: template.name,
    source,
    continued,
    document_source: source.kind === "package" ? ("package" as const) : source.kind === "new" ? ("new" as const) : ("template" as const),
    kba_required: template.kba_required === 1,
    provider_instance: template.provider_instance,
    provider_template_id: template.provider_template_id,
    page_count: template.page_count,
    fields,
    created_at: session.created_at,
    expires_at: session.expires_at,
  };
}
