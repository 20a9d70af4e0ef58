import type { Row } from "../../db/row";
import type { signingProviderTemplates } from "../../db/schema/templates";
import type { Env } from "../../env";
import { stampAndCertify } from "../../pdf";
import { nowIso } from "../../lib/time";
import { globalDb, isShardTagged, shardDb, shardOf } from "../../lib/shards";
import { SigningProviderError, type SigningProvider } from "./interface";

type ProviderTemplateRow = Row<typeof signingProviderTemplates>;

/**
 * The built-in provider keeps its templates in D1 (`signing_provider_templates`); the AUTOINCREMENT
 * row id is the `provider_template_id`. Both instances live here: `cloud` is the same store with the
 * KBA step added at signing time.
 */
// SQL exception: `signing_provider_templates` is this provider's own store, standing in for a remote
// provider's API, and these are its writes and its copy's read. Providers sit below services
// (test/conventions.spec.ts), so they cannot go to templates/repository.ts (which holds the services'
// read of the table); there is no ctx here either (the provider is built from env): they use the binding.
export class BuiltinSigningProvider implements SigningProvider {
  constructor(private readonly env: Env) {}

  /**
   * Where a template's counterpart is kept: beside the template (docs/decisions/shards.md 1), on its
   * shard for a builder working copy (a tagged id), else in the global database. A tagged id naming a
   * shard this deployment does not bind has no counterpart anywhere: shard 1 answers "not found".
   */
  private store(templateId: string | undefined): D1Database {
    if (!templateId || !isShardTagged(templateId)) return globalDb(this.env);
    return shardDb(this.env, shardOf(templateId)) ?? shardDb(this.env, 1)!;
  }

  /** Rendered in the Worker by the PDF room: stamps and the certificate page as incremental updates. */
  async renderSignedDocument(input: Parameters<SigningProvider["renderSignedDocument"]>[0]) {
    return stampAndCertify(input);
  }

  async createTemplate(input: Parameters<SigningProvider["createTemplate"]>[0]) {
    const at = nowIso();
    const row = await this.write(() =>
      this.store(input.templateId).prepare(
        `INSERT INTO signing_provider_templates (instance, org_id, template_id, name, document_key, page_count, fields, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, '[]', ?, ?) RETURNING id`,
      )
        .bind(input.instance, input.orgId, input.templateId, input.name, input.documentKey, input.pageCount, at, at)
        .first<{ id: number }>(),
    );
    if (!row) throw new SigningProviderError("rejected", "the template could not be created");
    return { providerTemplateId: row.id };
  }

  async setTemplateDocument(input: Parameters<SigningProvider["setTemplateDocument"]>[0]) {
    const result = await this.write(() =>
      this.store(input.templateId).prepare("UPDATE signing_provider_templates SET document_key = ?, page_count = ?, updated_at = ? WHERE id = ? AND instance = ?")
        .bind(input.documentKey, input.pageCount, nowIso(), input.providerTemplateId, input.instance)
        .run(),
    );
    if (result.meta.changes !== 1) throw new SigningProviderError("rejected", `provider template ${input.providerTemplateId} does not exist`);
  }

  async setTemplateFields(input: Parameters<SigningProvider["setTemplateFields"]>[0]) {
    const result = await this.write(() =>
      this.store(input.templateId).prepare("UPDATE signing_provider_templates SET fields = ?, updated_at = ? WHERE id = ? AND instance = ?")
        .bind(JSON.stringify(input.fields), nowIso(), input.providerTemplateId, input.instance)
        .run(),
    );
    if (result.meta.changes !== 1) throw new SigningProviderError("rejected", `provider template ${input.providerTemplateId} does not exist`);
  }

  /**
   * A copy shares the source's document: the built-in provider reads it from the same bucket. The
   * copy fails (502 to the caller) when the source counterpart is gone or its PDF is no longer in R2.
   */
  async copyTemplate(input: Parameters<SigningProvider["copyTemplate"]>[0]) {
    const store = this.store(input.templateId);
    const source = await store.prepare("SELECT * FROM signing_provider_templates WHERE id = ? AND instance = ?")
      .bind(input.providerTemplateId, input.from)
      .first<ProviderTemplateRow>();
    if (!source) throw new SigningProviderError("unavailable", `provider template ${input.providerTemplateId} does not exist in ${input.from}`);
    if (source.document_key && !(await this.env.DOCS.head(source.document_key))) {
      throw new SigningProviderError("unavailable", `the document of provider template ${source.id} is missing from storage`);
    }
    const at = nowIso();
    const row = await this.write(() =>
      store.prepare(
        `INSERT INTO signing_provider_templates (instance, org_id, template_id, name, document_key, page_count, fields, copied_from, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      )
        .bind(input.to, source.org_id, source.template_id, source.name, source.document_key, source.page_count, source.fields, source.id, at, at)
        .first<{ id: number }>(),
    );
    if (!row) throw new SigningProviderError("rejected", "the copy could not be created");
    return { providerTemplateId: row.id };
  }

  /** A failed write of the provider's own store is the provider rejecting it (502), not our 500. */
  private async write<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      console.error(JSON.stringify({ level: "error", provider: "builtin", error: String(err) }));
      throw new SigningProviderError("rejected", "the provider's store refused the write");
    }
  }
}
