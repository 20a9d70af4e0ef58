import type { RequestContext } from "../../lib/context";
import { conflict } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { normalizeEmail } from "../compose/create-envelope";
import { customerInsert, findCustomerIdByEmail } from "../customers/repository";
import { assertOrgExists } from "./orgs";

export async function createCustomer(
  ctx: RequestContext,
  input: { orgId: string; name: string; email?: string; primaryContactName?: string },
) {
  const db = ctx.db;
  await assertOrgExists(db, input.orgId);
  const email = input.email ? normalizeEmail(input.email) : null;
  if (email) {
    const existing = await findCustomerIdByEmail(db, input.orgId, email);
    if (existing) throw conflict("A customer with this email already exists in the organization", { customer_id: existing.id });
  }
  const customerId = newId("customer");
  const at = nowIso();
  await commitWithOrgAudit(
    db,
    { orgId: input.orgId, action: "customer.created", actor: ctx.actor, data: { customer_id: customerId }, at },
    [
      customerInsert(db, {
        id: customerId,
        org_id: input.orgId,
        name: input.name,
        email: input.email?.trim() ?? null,
        email_normalized: email,
        primary_contact_name: input.primaryContactName ?? null,
        at,
      }),
    ],
  );
  return { customer_id: customerId, name: input.name, email: input.email?.trim() ?? null, primary_contact_name: input.primaryContactName ?? null, created_at: at };
}
