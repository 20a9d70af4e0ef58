import type { OrgContext } from "../../lib/context";
import { disclosureView } from "./disclosure";
import { findCurrentDisclosure } from "./repository";
import type { EsignDisclosure } from "./schema";

/** GET /org/esign-disclosure: the organization's current version, or the shipped default (version 0). */
export async function getEsignDisclosure(ctx: OrgContext): Promise<EsignDisclosure> {
  return disclosureView(await findCurrentDisclosure(ctx.global, ctx.orgId));
}
