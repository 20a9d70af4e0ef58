import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../../src/lib/errors";
import { readVerifiedChain } from "../../../src/services/audit/verify-chain";
import { gatherFacts } from "../../../src/services/compliance/evaluate";
import { acceptTransfer } from "../../../src/services/control/accept-transfer";
import { cancelTransfer } from "../../../src/services/control/cancel-transfer";
import { expireTransfer } from "../../../src/services/control/expire-transfer";
import { offerTransfer } from "../../../src/services/control/offer-transfer";
import { paperOut } from "../../../src/services/control/paper-out";
import { payOff } from "../../../src/services/control/pay-off";
import { rejectTransfer } from "../../../src/services/control/reject-transfer";
import { releasePledge } from "../../../src/services/control/release-pledge";
import { getTransfer } from "../../../src/services/control/repository";
import { createRecordUrl } from "../../../src/services/control/vault-urls";
import { getEnvelope } from "../../../src/services/envelopes/repository";
import { runChecks } from "../../../src/services/vault/compliance-checks";
import { call, newTenant } from "../../helpers/api";
import { jobContextOf, orgContextOf } from "../../helpers/context";
import { completedEnvelope } from "../../helpers/vault";
import { shardDbOf } from "../../helpers/shards";

const ORGS = 4;

type Model = {
  controller: number;
  pledgor: number | null;
  status: "active" | "paid_off" | "paper_out";
  pending: { id: string; kind: "assignment" | "pledge"; from: number; to: number } | null;
  /** the last transfer settled, so stale answers are tried too */
  lastTransferId: string | null;
};

type Command =
  | { op: "offer"; actor: number; kind: "assignment" | "pledge"; to: number }
  | { op: "accept" | "reject" | "cancel"; actor: number }
  | { op: "expire" }
  | { op: "release" | "payoff" | "paperout"; actor: number };

const actor = fc.nat(ORGS - 1);
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant("offer" as const), actor, kind: fc.constantFrom("assignment" as const, "pledge" as const), to: actor }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constantFrom("accept" as const, "reject" as const, "cancel" as const), actor }) },
  { weight: 1, arbitrary: fc.constant({ op: "expire" as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("release" as const), actor }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constantFrom("payoff" as const, "paperout" as const), actor }) },
);

/** Whether the model allows the command: who may act, on what state (docs/control.md). */
function allowed(m: Model, c: Command): boolean {
  const active = m.status === "active";
  switch (c.op) {
    case "offer":
      return active && c.actor === m.controller && m.pending === null && c.to !== c.actor && !(c.kind === "pledge" && m.pledgor !== null);
    case "accept":
    case "reject":
      return m.pending !== null && c.actor === m.pending.to && (c.op === "reject" || active);
    case "cancel":
      return m.pending !== null && c.actor === m.pending.from;
    case "expire":
      return m.pending !== null;
    case "release":
      return active && c.actor === m.controller && m.pledgor !== null && m.pending === null;
    case "payoff":
    case "paperout":
      return active && c.actor === m.controller && m.pending === null;
  }
}

/** The model after an allowed command. */
function apply(m: Model, c: Command, offeredId: string | null): Model {
  switch (c.op) {
    case "offer":
      return { ...m, pending: { id: offeredId!, kind: c.kind, from: c.actor, to: c.to } };
    case "accept": {
      const p = m.pending!;
      return p.kind === "pledge"
        ? { ...m, controller: p.to, pledgor: p.from, pending: null, lastTransferId: p.id }
        : { ...m, controller: p.to, pledgor: null, pending: null, lastTransferId: p.id };
    }
    case "reject":
    case "cancel":
    case "expire":
      return { ...m, pending: null, lastTransferId: m.pending!.id };
    case "release":
      return { ...m, controller: m.pledgor!, pledgor: null };
    case "payoff":
      return { ...m, status: "paid_off" };
    case "paperout":
      return { ...m, status: "paper_out" };
  }
}

describe("control of the authoritative copy under random sequences of operations by random organizations", () => {
  let orgIds: string[] = [];
  let keys: string[] = [];
  beforeAll(async () => {
    const tenants = await Promise.all(Array.from({ length: ORGS }, () => newTenant({ scopes: ["envelopes:read", "envelopes:write", "vault:read", "vault:write", "vault:control"] })));
    orgIds = tenants.map((t) => t.orgId);
    keys = tenants.map((t) => t.key);
  });

  it("keeps exactly one controller, lets only the controller of the moment act, holds at most one pending transfer, verifies its chain and check 5, and gives the authoritative copy to the controller only", async () => {
    await fc.assert(
      fc.asyncProperty(actor, fc.array(command, { minLength: 1, maxLength: 16 }), async (originator, commands) => {
        const e = await completedEnvelope(keys[originator]!);
        const vaulted = await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: keys[originator]!, body: {} });
        expect(vaulted.status).toBe(200);
        const record = await shardDbOf(e.envelope_id).prepare("SELECT id FROM vault_records WHERE envelope_id = ?").bind(e.envelope_id).first<{ id: string }>();
        const vaultId = record!.id;
        let m: Model = { controller: originator, pledgor: null, status: "active", pending: null, lastTransferId: null };

        for (const c of commands) {
          const may = allowed(m, c);
          const ctxOf = (i: number) => orgContextOf(orgIds[i]!, vaultId);
          const transferId = m.pending?.id ?? m.lastTransferId ?? "vtr_none";
          let offered: string | null = null;
          const run = async () => {
            switch (c.op) {
              case "offer":
                offered = (await offerTransfer(ctxOf(c.actor), { vaultId, kind: c.kind, toOrgId: orgIds[c.to]!, reference: null, signatureHeader: undefined })).transfer_id;
                return;
              case "accept":
                return void (await acceptTransfer(ctxOf(c.actor), { transferId, signatureHeader: undefined }));
              case "reject":
                return void (await rejectTransfer(ctxOf(c.actor), { transferId, signatureHeader: undefined }));
              case "cancel":
                return void (await cancelTransfer(ctxOf(c.actor), { transferId, signatureHeader: undefined }));
              case "expire": {
                const row = await getTransfer(shardDbOf(vaultId), transferId);
                const expired = row ? await expireTransfer(jobContextOf(vaultId), row, new Date(Date.now() + 8 * 24 * 3600 * 1000)) : null;
                if (!expired) throw new ApiError(409, "nothing pending to expire");
                return;
              }
              case "release":
                return void (await releasePledge(ctxOf(c.actor), { vaultId, signatureHeader: undefined }));
              case "payoff":
                return void (await payOff(ctxOf(c.actor), { vaultId, reference: null, signatureHeader: undefined }));
              case "paperout":
                return void (await paperOut(ctxOf(c.actor), { vaultId, reason: "paper original requested", signatureHeader: undefined }));
            }
          };
          let outcome: "ok" | number = "ok";
          try {
            await run();
          } catch (err) {
            if (!(err instanceof ApiError)) throw err;
            outcome = err.status;
          }
          // Allowed moves succeed; everything else is a 4xx and changes nothing.
          expect(outcome === "ok", `${JSON.stringify(c)} on ${JSON.stringify(m)} answered ${outcome}`).toBe(may);
          if (outcome !== "ok") expect(outcome).toBeGreaterThanOrEqual(400);
          if (outcome !== "ok") expect(outcome).toBeLessThan(500);
          if (may) m = apply(m, c, offered);

          const row = await shardDbOf(vaultId).prepare("SELECT controller_org_id, pledgor_org_id, control_status FROM vault_records WHERE id = ?")
            .bind(vaultId)
            .first<{ controller_org_id: string; pledgor_org_id: string | null; control_status: string }>();
          expect(row).toEqual({ controller_org_id: orgIds[m.controller], pledgor_org_id: m.pledgor === null ? null : orgIds[m.pledgor], control_status: m.status });
          const pending = await shardDbOf(vaultId).prepare("SELECT COUNT(*) AS n FROM vault_transfers WHERE vault_id = ? AND status = 'pending'").bind(vaultId).first<{ n: number }>();
          expect(pending!.n).toBe(m.pending ? 1 : 0);
        }

        // The chain verifies and check 5 (controlled amendments) holds after everything that happened.
        const chain = await readVerifiedChain(shardDbOf(e.envelope_id), e.envelope_id);
        expect(chain.verification.verified).toBe(true);
        const envelope = await getEnvelope(shardDbOf(e.envelope_id), orgIds[originator]!, e.envelope_id);
        const checks = runChecks(await gatherFacts(shardDbOf(e.envelope_id), envelope));
        expect(checks.find((x) => x.requirement === "controlled_amendments")?.satisfied).toBe(true);

        // Only the controller of the moment is handed the authoritative copy (while control is open).
        for (let i = 0; i < ORGS; i++) {
          const url = await createRecordUrl(orgContextOf(orgIds[i]!, vaultId), { vaultId, file: "authoritative", expiresIn: 300 }).then(
            () => 200,
            (err: unknown) => (err instanceof ApiError ? err.status : 500),
          );
          if (i !== m.controller) expect(url, `org ${i} is not the controller ${m.controller}`).not.toBe(200);
          else if (m.status === "active") expect(url).toBe(200);
        }
      }),
      { numRuns: 30 },
    );
  });
});
