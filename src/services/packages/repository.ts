import type { GlobalDb } from "../../lib/shards";
import type { Row } from "../../db/row";
import type { documentPackageItems, documentPackages, templates } from "../../db/schema";
import { notFound } from "../../lib/errors";

/** Statements on `document_packages` and `document_package_items`. */

export type PackageRow = Row<typeof documentPackages>;
/** A member as `getPackage` reads it: the item with its template's name and deletion. */
export type PackageItemRow = Pick<Row<typeof documentPackageItems>, "position" | "template_id" | "kba_required" | "provider_instance" | "provider_template_id"> &
  Pick<Row<typeof templates>, "name" | "deleted_at">;

export async function getPackage(db: GlobalDb, orgId: string, packageId: string): Promise<{ pkg: PackageRow; items: PackageItemRow[] }> {
  const [pkg, items] = await db.batch<PackageRow | PackageItemRow>([
    db.prepare("SELECT * FROM document_packages WHERE id = ? AND org_id = ? AND deleted_at IS NULL").bind(packageId, orgId),
    db
      .prepare(
        `SELECT i.position, i.template_id, t.name, i.kba_required, i.provider_instance, i.provider_template_id, t.deleted_at
         FROM document_package_items i JOIN templates t ON t.id = i.template_id WHERE i.package_id = ? ORDER BY i.position`,
      )
      .bind(packageId),
  ]);
  const row = pkg?.results[0] as PackageRow | undefined;
  if (!row) throw notFound("Document package");
  return { pkg: row, items: (items?.results ?? []) as PackageItemRow[] };
}

/** The KBA flag of a live package of the organization, or null. */
export function findPackageKba(db: GlobalDb, orgId: string, packageId: string): Promise<Pick<PackageRow, "kba_required"> | null> {
  return db
    .prepare("SELECT kba_required FROM document_packages WHERE id = ? AND org_id = ? AND deleted_at IS NULL")
    .bind(packageId, orgId)
    .first<Pick<PackageRow, "kba_required">>();
}

export function packageInsert(db: GlobalDb, pkg: PackageRow): D1PreparedStatement {
  return db
    .prepare("INSERT INTO document_packages (id, org_id, name, kba_required, provider_instance, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .bind(pkg.id, pkg.org_id, pkg.name, pkg.kba_required, pkg.provider_instance, pkg.created_at, pkg.updated_at);
}

export function packageUpdate(db: GlobalDb, next: Pick<PackageRow, "id" | "name" | "kba_required" | "provider_instance" | "updated_at">): D1PreparedStatement {
  return db
    .prepare("UPDATE document_packages SET name = ?, kba_required = ?, provider_instance = ?, updated_at = ? WHERE id = ?")
    .bind(next.name, next.kba_required, next.provider_instance, next.updated_at, next.id);
}

export function packageItemsDelete(db: GlobalDb, packageId: string): D1PreparedStatement {
  return db.prepare("DELETE FROM document_package_items WHERE package_id = ?").bind(packageId);
}

/** One INSERT per member, positions from 1 in the order given. */
export function packageItemInserts(db: GlobalDb, orgId: string, packageId: string, items: Omit<PackageItemRow, "position" | "name" | "deleted_at">[]): D1PreparedStatement[] {
  return items.map((item, i) =>
    db
      .prepare(
        `INSERT INTO document_package_items (package_id, position, template_id, org_id, kba_required, provider_instance, provider_template_id)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(packageId, i + 1, item.template_id, orgId, item.kba_required, item.provider_instance, item.provider_template_id),
  );
}

export function packageDetail(pkg: PackageRow, items: PackageItemRow[]) {
  return {
    package_id: pkg.id,
    name: pkg.name,
    kba_required: pkg.kba_required === 1,
    provider_instance: pkg.provider_instance,
    items: items.map((i) => ({
      template_id: i.template_id,
      name: i.name,
      position: i.position,
      kba_required: i.kba_required === 1,
      provider_instance: i.provider_instance,
      provider_template_id: i.provider_template_id,
    })),
    created_at: pkg.created_at,
    updated_at: pkg.updated_at,
  };
}
