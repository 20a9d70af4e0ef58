import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { envelopes } from "./envelopes";
import { organizations } from "./organizations";

/**
 * A template: a PDF (in R2) with fields. `kba_required` is fixed at creation and decides the signing
 * provider instance (`cloud` for KBA, else `default`); `provider_template_id` is the integer id of the
 * counterpart the signing provider created. Console templates may have no document yet. Deleting
 * only sets `deleted_at`: envelopes made from the template keep pointing at its document.
 */
export const templates = sqliteTable(
  "templates",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    name: text("name").notNull(),
    externalId: text("external_id"),
    kbaRequired: integer("kba_required", { mode: "boolean" }).notNull().default(false),
    providerInstance: text("provider_instance", { enum: ["default", "cloud"] }).notNull().default("default"),
    providerTemplateId: integer("provider_template_id").notNull(),
    /** how it came to be: a partner upload, the console, or a builder session's working copy */
    origin: text("origin", { enum: ["upload", "console", "builder"] }).notNull(),
    documentKey: text("document_key"),
    documentSha256: text("document_sha256"),
    documentSizeBytes: integer("document_size_bytes"),
    pageCount: integer("page_count"),
    /** the document's displayed page sizes (envelope_documents.page_sizes), copied to the envelopes made from it */
    pageSizes: text("page_sizes", { mode: "json" }).$type<[number, number][]>(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  (t) => [
    index("templates_org_idx").on(t.orgId, t.createdAt),
    uniqueIndex("templates_provider_uq").on(t.providerInstance, t.providerTemplateId),
  ],
);

/** The columns a placed field has wherever it lives (a template, or an envelope it was copied onto). */
const fieldColumns = () => ({
  seq: integer("seq").notNull(),
  orgId: text("org_id").notNull(),
  name: text("name").notNull(),
  type: text("type").notNull(),
  role: text("role").notNull(),
  required: integer("required", { mode: "boolean" }).notNull().default(false),
  readonly: integer("readonly", { mode: "boolean" }).notNull().default(false),
  defaultValue: text("default_value"),
  /** select and radio: the choices, JSON array of strings (a radio with one area per option places each choice) */
  options: text("options", { mode: "json" }).$type<string[]>(),
  placementMode: text("placement_mode", { enum: ["absolute", "anchor", "tag"] }).notNull(),
  /** resolved areas (fractions of the displayed page), JSON array of { page, x, y, w, h } */
  areas: text("areas", { mode: "json" }).notNull(),
  anchorMatch: text("anchor_match", { mode: "json" }),
  createdAt: text("created_at").notNull(),
});

/** Fields of a template, in the order they were added; names are unique within a template. */
export const templateFields = sqliteTable(
  "template_fields",
  {
    templateId: text("template_id").notNull().references(() => templates.id),
    ...fieldColumns(),
    /** the placement as requested (anchor text, offsets), kept for audit and re-resolution */
    placement: text("placement", { mode: "json" }),
  },
  (t) => [primaryKey({ columns: [t.templateId, t.seq] }), uniqueIndex("template_fields_name_uq").on(t.templateId, t.name)],
);

/** Fields copied onto an envelope from its template (or its uploaded document's tags), with prefills. */
export const envelopeFields = sqliteTable(
  "envelope_fields",
  {
    envelopeId: text("envelope_id").notNull().references(() => envelopes.id),
    ...fieldColumns(),
    /** the prefilled value (prefilled_data by field name), else the default */
    value: text("value"),
    sourceTemplateId: text("source_template_id"),
  },
  (t) => [primaryKey({ columns: [t.envelopeId, t.seq] }), uniqueIndex("envelope_fields_name_uq").on(t.envelopeId, t.name)],
);

/** A package of templates sent together; `kba_required` and `provider_instance` are derived from its items. */
export const documentPackages = sqliteTable(
  "document_packages",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    name: text("name").notNull(),
    kbaRequired: integer("kba_required", { mode: "boolean" }).notNull().default(false),
    providerInstance: text("provider_instance", { enum: ["default", "cloud"] }).notNull().default("default"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  (t) => [index("document_packages_org_idx").on(t.orgId, t.createdAt)],
);

/**
 * The members of a package, in order. In a KBA package every member lives in the `cloud` instance:
 * members that are not KBA templates themselves are copied there, and `provider_template_id` is the
 * id of the counterpart the package uses.
 */
export const documentPackageItems = sqliteTable(
  "document_package_items",
  {
    packageId: text("package_id").notNull().references(() => documentPackages.id),
    position: integer("position").notNull(),
    templateId: text("template_id").notNull().references(() => templates.id),
    orgId: text("org_id").notNull(),
    kbaRequired: integer("kba_required", { mode: "boolean" }).notNull().default(false),
    providerInstance: text("provider_instance", { enum: ["default", "cloud"] }).notNull(),
    providerTemplateId: integer("provider_template_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.packageId, t.position] }), uniqueIndex("document_package_items_template_uq").on(t.packageId, t.templateId)],
);

/** An editor session: the working template (copied or merged) an envelope's document is prepared in. */
export const builderSessions = sqliteTable(
  "builder_sessions",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    envelopeId: text("envelope_id").notNull().references(() => envelopes.id),
    templateId: text("template_id").notNull().references(() => templates.id),
    /** what the working document was built from: { kind, template_ids, package_id } */
    source: text("source", { mode: "json" }).notNull(),
    kbaRequired: integer("kba_required", { mode: "boolean" }).notNull().default(false),
    providerInstance: text("provider_instance", { enum: ["default", "cloud"] }).notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("builder_sessions_envelope_idx").on(t.envelopeId, t.createdAt)],
);

/**
 * The built-in signing provider's own records (docs/decisions/signer-api.md): one row per provider template, whose
 * AUTOINCREMENT id is the integer `provider_template_id` (never reused, even after deletes).
 */
export const signingProviderTemplates = sqliteTable("signing_provider_templates", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  instance: text("instance", { enum: ["default", "cloud"] }).notNull(),
  orgId: text("org_id").notNull(),
  templateId: text("template_id").notNull(),
  name: text("name").notNull(),
  documentKey: text("document_key"),
  pageCount: integer("page_count"),
  fields: text("fields", { mode: "json" }).notNull(),
  copiedFrom: integer("copied_from"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});
