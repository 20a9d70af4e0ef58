import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { envelopes } from "./envelopes";

/**
 * The PDFs of an envelope, kept in R2 (`DOCS`): `original` is the document sent for signature (or the
 * paper document as uploaded), `signed` the stamped result of the signing. The hash is taken when the
 * bytes are written, so later readers can prove they read what was stored.
 */
export const envelopeDocuments = sqliteTable(
  "envelope_documents",
  {
    id: text("id").primaryKey(),
    envelopeId: text("envelope_id").notNull().references(() => envelopes.id),
    orgId: text("org_id").notNull(),
    kind: text("kind", { enum: ["original", "signed"] }).notNull(),
    r2Key: text("r2_key").notNull(),
    sha256: text("sha256").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    pageCount: integer("page_count"),
    /**
     * An `original`'s displayed page sizes, in order (JSON `[[width, height], …]`, PDF points with the
     * CropBox and /Rotate applied, as field areas are fractions of): the signing page lays out and places
     * the fields before its PDF viewer loads. Null for documents stored before sizes were recorded.
     */
    pageSizes: text("page_sizes", { mode: "json" }).$type<[number, number][]>(),
    /**
     * The PAdES baseline level a `signed` document's seal reached (docs/evidence.md): `B-B`, `B-T`, `B-LT`,
     * `B-LTA`; raised by incremental updates before vaulting (a new object and hash each time); null for an original.
     */
    evidenceLevel: text("evidence_level"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("envelope_documents_kind_uq").on(t.envelopeId, t.kind), index("envelope_documents_org_idx").on(t.orgId)],
);
