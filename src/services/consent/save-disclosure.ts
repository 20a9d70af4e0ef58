import type { Locale } from "../../db/schema/locales";
import { conflict } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { retryRaces } from "../../lib/retry";
import { nowIso } from "../../lib/time";
import type { OrgContext } from "../../lib/context";
import { commitWithOrgAudit } from "../audit/org-chain";
import { disclosureHash, disclosureView } from "./disclosure";
import { disclosureInsert, findCurrentDisclosure, isDisclosureVersionConflict, type EsignDisclosureRow } from "./repository";
import type { EsignDisclosure, EsignDisclosureInput } from "./schema";

/**
 * PUT /org/esign-disclosure?locale=: saves the next version of that locale's series (never edits one: envelopes pinned earlier keep
 * theirs), hashed, with its org audit entry in one batch. Two saves racing for the same version number
 * collide on (org_id, version); the loser reads again and takes the next one.
 */
export async function saveEsignDisclosure(ctx: OrgContext, input: { disclosure: EsignDisclosureInput; locale: Locale }): Promise<EsignDisclosure> {
  const { global: db, orgId } = ctx;
  const { locale } = input;
  const d = input.disclosure;
  const row = await retryRaces(
    async () => {
      const current = await findCurrentDisclosure(db, orgId, locale);
      const version = (current?.version ?? 0) + 1;
      const at = nowIso();
      const row: EsignDisclosureRow = {
        id: newId("disclosure"),
        org_id: orgId,
        locale,
        version,
        required: d.required ? 1 : 0,
        text: d.text,
        paper_copy_contact: d.paper_copy_contact,
        withdrawal_instructions: d.withdrawal_instructions,
        sha256: await disclosureHash(d, version),
        created_by: ctx.actor.id ?? null,
        created_at: at,
      };
      await commitWithOrgAudit(
        db,
        { orgId, action: "org.esign_disclosure_updated", actor: ctx.actor, data: { locale, version, sha256: row.sha256, required: d.required }, at },
        [disclosureInsert(db, row)],
      );
      return row;
    },
    isDisclosureVersionConflict,
    () => conflict("The disclosure is being changed concurrently; retry"),
  );
  return disclosureView(row);
}
