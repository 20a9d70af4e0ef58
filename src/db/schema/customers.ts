import { sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "./organizations";

export const customers = sqliteTable(
  "customers",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    name: text("name").notNull(),
    email: text("email"),
    /** lower-cased, trimmed email: one customer per address per organization */
    emailNormalized: text("email_normalized"),
    primaryContactName: text("primary_contact_name"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("customers_org_email_uq").on(t.orgId, t.emailNormalized)],
);
