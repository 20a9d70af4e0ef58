import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { destroyExpired } from "../../../src/jobs/destroy-expired";
import { ApiError } from "../../../src/lib/errors";
import { destroyRecord } from "../../../src/services/retention/destroy-record";
import { placeHold, releaseHold } from "../../../src/services/retention/holds";
import { call } from "../../helpers/api";
import { jobContextOf, orgContextOf } from "../../helpers/context";
import { party, vaulted, type Party } from "../../helpers/control";
import { shardDbOf } from "../../helpers/shards";
import { adminToken } from "../../helpers/webhooks";

/**
 * Whatever the order of holds, releases, clock advances, closes, and manual and cron destructions by any of the
 * organizations, no record is ever destroyed while a hold is in force, nor before its retain_until, nor by an
 * organization that does not control it. The clock is the time the rules are judged at (`asOf`), advanced by whole
 * years; retention is 1 year for every organization (auto-destroy for two of them).
 */
type Step =
  | { kind: "hold"; rec: number; org: number }
  | { kind: "release"; rec: number; pick: number }
  | { kind: "advance"; years: number }
  | { kind: "close"; rec: number }
  | { kind: "destroy"; rec: number; org: number }
  | { kind: "cron"; rec: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("hold" as const), rec: fc.nat(1), org: fc.nat(2) }),
  fc.record({ kind: fc.constant("release" as const), rec: fc.nat(1), pick: fc.nat(3) }),
  fc.record({ kind: fc.constant("advance" as const), years: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant("close" as const), rec: fc.nat(1) }),
  fc.record({ kind: fc.constant("destroy" as const), rec: fc.nat(1), org: fc.nat(2) }),
  fc.record({ kind: fc.constant("cron" as const), rec: fc.nat(1) }),
);

const YEAR = 366 * 86_400_000;

describe("destruction never takes a held record, nor one before its retention, nor another's", () => {
  it("random interleavings (fast-check)", async () => {
    const orgs: Party[] = await Promise.all([party("Dealer"), party("Bank"), party("Stranger")]);
    for (const [i, o] of orgs.entries()) {
      const res = await call("PUT", "/org/retention", { bearer: await adminToken(o.orgId), body: { retain_years_after_close: 1, auto_destroy: i !== 1 } });
      expect(res.status).toBe(200);
    }
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 12 }), async (steps) => {
        // two fresh records of the dealer's (org 0); the stranger (org 2) is no party
        const recs = await Promise.all([vaulted(orgs[0]!), vaulted(orgs[0]!)]);
        const holds: string[][] = [[], []];
        const holders: (number | null)[][] = [[], []];
        let clock = Date.now();
        for (const s of steps) {
          const rec = "rec" in s ? recs[s.rec]! : null;
          const before = rec ? (await shardDbOf(rec.vaultId).prepare("SELECT control_status, retain_until FROM vault_records WHERE id = ?").bind(rec.vaultId).first<{ control_status: string; retain_until: string | null }>())! : null;
          const inForce = rec ? holds["rec" in s ? s.rec : 0]!.length : 0;
          try {
            if (s.kind === "hold") {
              const h = await placeHold(orgContextOf(orgs[s.org]!.orgId, rec!.vaultId), { vaultId: rec!.vaultId, by: { orgId: orgs[s.org]!.orgId }, reason: "property", reference: null });
              holds[s.rec]!.push(h.hold_id);
              holders[s.rec]!.push(s.org);
            } else if (s.kind === "release" && holds[s.rec]!.length > 0) {
              const i = s.pick % holds[s.rec]!.length;
              await releaseHold(orgContextOf(orgs[holders[s.rec]![i]!]!.orgId, rec!.vaultId), { vaultId: rec!.vaultId, holdId: holds[s.rec]![i]!, by: { orgId: orgs[holders[s.rec]![i]!]!.orgId } });
              holds[s.rec]!.splice(i, 1);
              holders[s.rec]!.splice(i, 1);
            } else if (s.kind === "advance") clock += s.years * YEAR;
            else if (s.kind === "close") {
              await call("POST", `/partner/vault/${rec!.vaultId}/paid-off`, { key: orgs[0]!.key, body: {} });
            } else if (s.kind === "destroy") {
              await destroyRecord(orgContextOf(orgs[s.org]!.orgId, rec!.vaultId), { vaultId: rec!.vaultId, by: { orgId: orgs[s.org]!.orgId }, asOf: new Date(clock) });
            } else if (s.kind === "cron") await destroyExpired(jobContextOf(rec!.vaultId), new Date(clock));
          } catch (err) {
            if (!(err instanceof ApiError) || err.status >= 500) throw err;
          }
          if (!rec || !before) continue;
          const after = (await shardDbOf(rec.vaultId).prepare("SELECT control_status, destroyed_at, destruction_certificate FROM vault_records WHERE id = ?").bind(rec.vaultId).first<{ control_status: string; destruction_certificate: string | null }>())!;
          if (before.control_status !== "destroyed" && after.control_status === "destroyed") {
            expect(inForce, `destroyed under ${inForce} hold(s) by ${s.kind}`).toBe(0);
            expect(before.retain_until).not.toBeNull();
            expect(Date.parse(before.retain_until!)).toBeLessThanOrEqual(clock);
            if (s.kind === "destroy") expect(s.org, "destroyed by a non-controller").toBe(0);
            else expect(s.kind).toBe("cron");
            expect(JSON.parse(after.destruction_certificate!).vault_id).toBe(rec.vaultId);
          }
        }
      }),
      { numRuns: 6 },
    );
  }, 600_000);
});
