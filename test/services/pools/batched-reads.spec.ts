import { beforeAll, describe, expect, it } from "vitest";
import { gatherFacts } from "../../../src/services/compliance/evaluate";
import { readControl, readControlMany, type ControlState } from "../../../src/services/control/state";
import { issueCertificate } from "../../../src/services/vault/certificate";
import { readRecordsOnce } from "../../../src/services/vault/record-reads";
import { jobContextOf } from "../../helpers/context";
import { offered, party, transferred, vaulted, type Party } from "../../helpers/control";

/**
 * A pool's chunk reads its records together (control/state.ts readControlMany, vault/record-reads.ts
 * readRecordsOnce) and plans each on those reads with the code a single control step runs. What it
 * reads must be what a single step reads, record by record: the control state, the compliance facts
 * and the certificate a move issues, for records with different histories (fresh with an offer
 * pending, assigned once, pledged).
 */
describe("a chunk's records read together are read as one record's step reads them", () => {
  let parties: [Party, Party, Party];
  let ids: string[];

  beforeAll(async () => {
    parties = [await party("Reads Seller"), await party("Reads Buyer"), await party("Reads Lender")];
    const [a, b, c] = parties;
    const fresh = await vaulted(a);
    await offered(a, fresh.vaultId, b);
    const assigned = await vaulted(a);
    await transferred(a, assigned.vaultId, b);
    const pledged = await vaulted(a);
    await transferred(a, pledged.vaultId, c, "pledge");
    ids = [fresh.vaultId, assigned.vaultId, pledged.vaultId];
  }, 300_000);

  it("readControlMany answers each record's state as readControl does, and leaves out a record that does not exist", async () => {
    const ctx = jobContextOf(ids[0]!);
    const missing = `${ids[0]!.slice(0, -4)}zzzz`;
    const many = await readControlMany(ctx.db, [...ids, missing]);
    expect([...many.keys()].sort()).toEqual([...ids].sort());
    for (const id of ids) expect(many.get(id)).toEqual(await readControl(ctx.db, id));
    expect(many.get(ids[0]!)!.pending?.to_org_id).toBe(parties[1].orgId);
    expect(many.get(ids[2]!)!.record.pledgor_org_id).toBe(parties[0].orgId);
  });

  it("the facts and the certificate a move would issue are the same from the chunk's reads as from a step's own", async () => {
    const ctx = jobContextOf(ids[0]!);
    const states = await readControlMany(ctx.db, ids);
    const reader = await readRecordsOnce(ctx.db, [...states.values()].map((s) => s.envelope.id));
    for (const state of states.values() as Iterable<ControlState>) {
      const { record, envelope } = state;
      // the record as a move to the third party would leave it, with its chain entry
      const after = { ...record, controller_org_id: parties[2].orgId, pledgor_org_id: null };
      const pending = { record: after, step: { action: "vault.control_transferred", data: { vault_id: record.id, from_org_id: record.controller_org_id, to_org_id: parties[2].orgId } } };
      for (const step of [undefined, pending]) {
        const direct = await gatherFacts(ctx.db, envelope, step);
        const together = await gatherFacts(ctx.db, envelope, step, reader);
        expect(together).toEqual(direct);
        const at = new Date().toISOString();
        const input = { envelope, vaultId: record.id, facts: direct, issuedAt: at, reason: "vault.control_transferred", renderPdf: false };
        const [one, both] = [await issueCertificate(ctx, input), await issueCertificate(ctx, { ...input, reader })];
        expect(both.certificate).toEqual(one.certificate);
        expect(one.certificate.control.controller.org_id).toBe(step ? parties[2].orgId : record.controller_org_id);
      }
    }
  });
});
