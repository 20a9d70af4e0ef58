import type { RequestContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { normalizeEmail } from "../envelopes/create-envelope";
import { assertOrgExists } from "./orgs";

export async function createCustomer(
  ctx: RequestContext,
  input: { orgId: string; name: string; email?: string; primaryContactName?: string },
) {
  const db = ctx.db;
  await assertOrgExists(db, input.orgId);
  const email = input.email ? normalizeEmail(input.email) : null;
  if (email) {
    const existing = await db
      .prepare("SELECT id FROM customers WHERE org_id = ? AND email_normalized = ?")
      .bind(input.orgId, email)
      .first<{ id: string }>();
    if (existing) throw conflict("A customer with this email already exists in the organization", { customer_id: existing.id });
  }
  const customerId = newId("customer");
  const at = nowIso();
  await commitWithOrgAudit(
    db,
    { orgId: input.orgId, action: "customer.created", actor: ctx.actor, data: { customer_id: customerId }, at },
    [
      db
        .prepare(
          `INSERT INTO customers (id, org_id, name, email, email_normalized, primary_contact_name, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .bind(customerId, input.orgId, input.name, input.email?.trim() ?? null, email, input.primaryContactName ?? null, at, at),
    ],
  );
  return { customer_id: customerId, name: input.name, email: input.email?.trim() ?? null, primary_contact_name: input.primaryContactName ?? null, created_at: at };
}
