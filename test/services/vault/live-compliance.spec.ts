import { describe, expect, it } from "vitest";
import { call } from "../../helpers/api";
import { party, vaulted } from "../../helpers/control";
import { compliance } from "../../helpers/vault";

/**
 * The live evaluation tells the truth about a record now, not when its certificate was issued: after a
 * paper-out the electronic record is no longer authoritative, and the checks that depend on it say so.
 * The envelope's `compliant` keeps its meaning (a certificate has been generated).
 */
describe("live compliance after paper-out", () => {
  it("drops the single-authoritative-copy and custody checks, on the envelope's evaluation and the vault record, while the status still says a certificate exists", async () => {
    const a = await party("Lender");
    const { e, vaultId } = await vaulted(a);
    const before = await compliance(a.key, e.envelope_id);
    expect(before).toMatchObject({ compliant: true, score: 1, missing_requirements: [] });

    const res = await call("POST", `/partner/vault/${vaultId}/paper-out`, { key: a.key, body: { reason: "Court filing" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);

    const after = await compliance(a.key, e.envelope_id);
    expect(after.compliant).toBe(false);
    expect(after.score).toBe(0.75);
    expect(after.missing_requirements.sort()).toEqual(["custody_by_secured_party", "single_authoritative_copy"]);
    const single = after.checks.find((c: { requirement: string }) => c.requirement === "single_authoritative_copy");
    expect(single.detail).toContain("converted to paper");
    const named = after.checks.find((c: { requirement: string }) => c.requirement === "secured_party_identified");
    expect(named.detail).toContain("converted to paper");

    const record = await call("GET", `/partner/vault/${vaultId}`, { key: a.key });
    expect(record.body.data.compliance).toMatchObject({ compliant: false, missing_requirements: expect.arrayContaining(["single_authoritative_copy", "custody_by_secured_party"]) });

    // the spec's `compliant` on the envelope: a certificate has been generated, and it has
    const status = await call("GET", `/partner/envelopes/${e.envelope_id}/status`, { key: a.key });
    expect(status.body.data.compliant).toBe(true);
  });

  it("paid-off keeps the electronic record authoritative: every check still holds", async () => {
    const a = await party("Lender");
    const { e, vaultId } = await vaulted(a);
    expect((await call("POST", `/partner/vault/${vaultId}/paid-off`, { key: a.key, body: {} })).status).toBe(200);
    expect(await compliance(a.key, e.envelope_id)).toMatchObject({ compliant: true, score: 1 });
  });
});
