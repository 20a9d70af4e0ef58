import type { OrgContext } from "../../lib/context";
import { listRetentionPolicies } from "../organizations/repository";
import { commitControl } from "./commit-control";
import { pendingConflict } from "./offer-transfer";
import { bodySha256, verifyRecordSignature } from "./signature";
import { assertActive, assertController, readControl, type ControlState } from "./state";

/** What a closing step needs of the state: the caller controls an active record with no transfer pending. */
export function assertCanClose(state: ControlState, orgId: string): void {
  assertController(state, orgId);
  assertActive(state);
  if (state.pending) throw pendingConflict(state.pending);
}

/**
 * Closes control of a record for good (docs/control.md): paid off or papered out, by the controller. One
 * step through commitControl: `vault.paid_off` / `vault.paper_out` on the chain with the note,
 * `control_status`, `closed_at` and `closed_note` on the record, the event to the controller (a closing step
 * has no receiving organization). Afterwards every control operation is 409 `control_closed`. While a transfer is
 * pending: 409 `transfer_pending` (docs/decisions/control-transfers.md). `prepare` runs once the
 * checks and the signature pass and before the commit (paper-out stores its stamped copy there).
 */
export async function closeRecord(
  ctx: OrgContext,
  input: {
    vaultId: string;
    status: "paid_off" | "paper_out";
    note: string | null;
    detail: Record<string, unknown>;
    /** the request body as received, which the Control-Signature's `body_sha256` covers */
    body: unknown;
    signatureHeader: string | undefined;
    prepare?: (state: ControlState) => Promise<void>;
  },
): Promise<ControlState> {
  const state = await readControl(ctx.db, input.vaultId);
  assertCanClose(state, ctx.orgId);
  const signature = await verifyRecordSignature(ctx.global, {
    orgId: ctx.orgId,
    header: input.signatureHeader,
    claim: { vault_id: input.vaultId, action: input.status, body_sha256: await bodySha256(input.body) },
    controlSeq: state.controlSeq,
  });
  await input.prepare?.(state);
  // Retention (docs/control.md): the closing controller's policy decides how long the closed record is kept.
  const [policy] = await listRetentionPolicies(ctx.global, [ctx.orgId]);
  const years = policy?.retain_years_after_close ?? DEFAULT_RETAIN_YEARS;
  await commitControl(ctx, input.vaultId, async (fresh, at) => {
    assertCanClose(fresh, ctx.orgId);
    const retainUntil = addYears(at, years);
    return {
      step: {
        action: input.status === "paid_off" ? "vault.paid_off" : "vault.paper_out",
        fromOrgId: ctx.orgId,
        toOrgId: null,
        change: { control_status: input.status, closed_at: at, closed_note: input.note, retain_until: retainUntil },
        detail: { ...input.detail, retain_until: retainUntil, retain_years_after_close: years },
        signature,
      },
      result: () => undefined,
    };
  });
  return readControl(ctx.db, input.vaultId);
}

/** The retention of an organization that never set one (PUT /org/retention). */
export const DEFAULT_RETAIN_YEARS = 7;

/** `iso` plus whole calendar years, in UTC (29 February lands on 1 March in a common year). */
export function addYears(iso: string, years: number): string {
  const d = new Date(iso);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString();
}
