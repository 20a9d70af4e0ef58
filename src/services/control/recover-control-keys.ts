import type { RequestContext } from "../../lib/context";
import { notFound } from "../../lib/errors";
import { nowIso } from "../../lib/time";
import { commitWithOrgAudit } from "../audit/org-chain";
import { findOrganization } from "../organizations/repository";
import { controlKeysDeleteAll, listControlKeys } from "./repository";

/**
 * The operator's recovery of an organization that lost every control key (docs/control.md): removes all
 * of its keys, so it acts on its API key alone again and can register new ones unsigned. One batch with
 * the `control_key.recovered` entry on the organization's chain, naming the operator as the actor and
 * the kids removed. Unknown organization: 404. An organization without keys still gets the entry: the
 * operator acted.
 */
export async function recoverControlKeys(ctx: RequestContext, input: { orgId: string }): Promise<{ org_id: string; removed: string[] }> {
  if (!(await findOrganization(ctx.global, input.orgId))) throw notFound("Organization");
  const removed = (await listControlKeys(ctx.global, input.orgId)).map((k) => k.kid);
  await commitWithOrgAudit(
    ctx.global,
    { orgId: input.orgId, action: "control_key.recovered", actor: ctx.actor, data: { removed }, at: nowIso() },
    [controlKeysDeleteAll(ctx.global, input.orgId)],
  );
  return { org_id: input.orgId, removed };
}
