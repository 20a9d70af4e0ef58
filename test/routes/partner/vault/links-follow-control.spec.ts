import { describe, expect, it } from "vitest";
import { call } from "../../../helpers/api";
import { offered, party, transferred, vaulted, type Party } from "../../../helpers/control";
import { download } from "../../../helpers/vault";

// docs/control.md: an authoritative-copy link names the controller it was issued to and is checked again
// when used; a link issued before control moved (or closed) no longer serves the copy.

/** A day-long link to the authoritative copy, issued to `org` on the record path (or the envelope path). */
async function acLink(org: Party, vaultId: string, envelopePath?: string): Promise<string> {
  const path = envelopePath ? `/partner/envelopes/${envelopePath}/vault/signed-url?expires=86400` : `/partner/vault/${vaultId}/signed-url?expires=86400`;
  const res = await call("GET", path, { key: org.key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.signed_url).toContain(`c=${org.orgId}`);
  return res.body.data.signed_url as string;
}

const refused = async (url: string) => {
  const res = await download(url);
  return [res.status, res.json().code] as const;
};

describe("authoritative-copy links follow control", () => {
  it("a link issued before an accepted assignment answers 403 not_controller; the new controller's link works", async () => {
    const [a, b] = await Promise.all([party("Dealer"), party("Bank")]);
    const { e, vaultId } = await vaulted(a);
    const [recordLink, envelopeLink] = [await acLink(a, vaultId), await acLink(a, vaultId, e.envelope_id)];
    expect((await download(recordLink)).status).toBe(200);
    await transferred(a, vaultId, b, "assignment");
    expect(await refused(recordLink)).toEqual([403, "not_controller"]);
    expect(await refused(envelopeLink)).toEqual([403, "not_controller"]);
    expect((await download(await acLink(b, vaultId))).status).toBe(200);
  });

  it("a pledge kills the pledgor's link; its release kills the pledgee's", async () => {
    const [a, b] = await Promise.all([party("Dealer"), party("Warehouse")]);
    const { vaultId } = await vaulted(a);
    const pledgorLink = await acLink(a, vaultId);
    await transferred(a, vaultId, b, "pledge");
    expect(await refused(pledgorLink)).toEqual([403, "not_controller"]);
    const pledgeeLink = await acLink(b, vaultId);
    expect((await download(pledgeeLink)).status).toBe(200);
    expect((await call("POST", `/partner/vault/${vaultId}/release-pledge`, { key: b.key })).status).toBe(200);
    expect(await refused(pledgeeLink)).toEqual([403, "not_controller"]);
    // control came back: a link issued to the pledgor now works (the one from before the pledge too: it names the controller again)
    expect((await download(await acLink(a, vaultId))).status).toBe(200);
  });

  it("an offer alone kills no link", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { vaultId } = await vaulted(a);
    const link = await acLink(a, vaultId);
    await offered(a, vaultId, b, "assignment");
    expect((await download(link)).status).toBe(200);
  });

  it("a paper-out or a payoff closes the record: older links answer 409 control_closed, and no new one is issued", async () => {
    const a = await party();
    for (const [what, body] of [
      ["paper-out", { reason: "Court filing" }],
      ["paid-off", { reference: "Payoff letter" }],
    ] as const) {
      const { vaultId } = await vaulted(a);
      const link = await acLink(a, vaultId);
      expect((await call("POST", `/partner/vault/${vaultId}/${what}`, { key: a.key, body })).status).toBe(200);
      expect(await refused(link), what).toEqual([409, "control_closed"]);
      const again = await call("GET", `/partner/vault/${vaultId}/signed-url`, { key: a.key });
      expect([again.status, again.body.code], what).toEqual([409, "control_closed"]);
    }
  });

  it("a link's controller is signed: naming another organization, or none, breaks it", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const { vaultId } = await vaulted(a);
    const link = await acLink(a, vaultId);
    const u = new URL(link);
    u.searchParams.set("c", b.orgId);
    expect((await download(u.toString())).status).toBe(403);
    u.searchParams.delete("c");
    expect((await download(u.toString())).status).toBe(403);
    // the other files' links carry no controller and keep working for every party
    const copy = await call("GET", `/partner/vault/${vaultId}/copy/signed-url`, { key: a.key });
    expect(copy.body.data.signed_url).not.toContain("c=");
    expect((await download(copy.body.data.signed_url)).status).toBe(200);
  });
});
