import { notFound } from "../../lib/errors";
import type { ProviderInstance } from "../templates/schema";

export type PackageRow = { id: string; org_id: string; name: string; kba_required: number; provider_instance: ProviderInstance; created_at: string; updated_at: string; deleted_at: string | null };
export type PackageItemRow = { position: number; template_id: string; name: string; kba_required: number; provider_instance: ProviderInstance; provider_template_id: number; deleted_at: string | null };

export async function getPackage(db: D1Database, orgId: string, packageId: string): Promise<{ pkg: PackageRow; items: PackageItemRow[] }> {
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
