import { describe, expect, it } from "vitest";
import { call, createEnvelope, envelopeBody, newTenant } from "../../../helpers/api";
import { outboxOf, sendableEnvelope, sendEnvelope } from "../../../helpers/signing";
import { orgShardDb, shardDbOf } from "../../../helpers/shards";

const CC = [
  { name: "Dealer Desk", email: "contracts@dealer.example" },
  { name: "Co-buyer's Attorney", email: "counsel@law.example" },
];

const ccRows = (envelopeId: string) =>
  shardDbOf(envelopeId).prepare("SELECT id, name, email, position FROM envelope_cc_recipients WHERE envelope_id = ? ORDER BY position").bind(envelopeId).all<{ id: string; name: string; email: string; position: number }>();

const envelopeCount = async (orgId: string) => (await (await orgShardDb(orgId)).prepare("SELECT COUNT(*) AS n FROM envelopes WHERE org_id = ?").bind(orgId).first<{ n: number }>())!.n;

describe("cc recipients on create (docs/consumer-signing.md Recipients)", () => {
  it("stores the cc recipients in order and shows them on the create answer and the envelope read", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key, { cc: CC });
    expect(e.cc).toEqual(CC);
    const read = await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key });
    expect(read.status).toBe(200);
    expect(read.body.data.cc).toEqual(CC);
    const rows = (await ccRows(e.envelope_id)).results;
    expect(rows.map((r) => [r.name, r.email, r.position])).toEqual([[CC[0]!.name, CC[0]!.email, 0], [CC[1]!.name, CC[1]!.email, 1]]);
    for (const r of rows) expect(r.id).toMatch(/^ccr_/);
  });

  it("shows an empty cc list on an envelope created without one", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    expect(e.cc).toEqual([]);
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key })).body.data.cc).toEqual([]);
  });

  it("never invites a cc recipient: sending emails the signers only", async () => {
    const t = await newTenant();
    const e = await sendableEnvelope(t.key, ["buyer"], { cc: CC });
    const sent = await sendEnvelope(t.key, e.envelope_id, { signers: [{ role: "buyer", email: "ann@example.com", name: "Ann Buyer" }] });
    expect(sent.status).toBe(200);
    expect(sent.body.data.signers.map((s: { email: string }) => s.email)).toEqual(["ann@example.com"]);
    const mail = await outboxOf(e.envelope_id);
    expect(mail.map((m) => [m.kind, m.to_email])).toEqual([["invitation", "ann@example.com"]]);
    expect(sent.body.data.cc).toEqual(CC);
  });

  it("refuses more than 10, a bad address, a missing name or the same address twice with 422 naming the entry, and creates nothing", async () => {
    const t = await newTenant();
    const eleven = Array.from({ length: 11 }, (_, i) => ({ name: `Copy ${i}`, email: `copy${i}@example.com` }));
    const cases: [unknown, string][] = [
      [eleven, "cc"],
      [[{ name: "Dealer", email: "not-an-address" }], "cc.0.email"],
      [[{ name: "  ", email: "dealer@example.com" }], "cc.0.name"],
      [[{ name: "Dealer", email: "dealer@example.com" }, { name: "Dealer again", email: " Dealer@Example.com" }], "cc.1.email"],
      [{ name: "Dealer", email: "dealer@example.com" }, "cc"],
    ];
    for (const [cc, path] of cases) {
      const res = await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody({ cc }) });
      expect(res.status, JSON.stringify(cc)).toBe(422);
      expect(typeof res.body.error).toBe("string");
      expect(res.body.details.map((d: { path: (string | number)[] }) => d.path.join("."))).toContain(path);
    }
    expect(await envelopeCount(t.orgId)).toBe(0);
    // exactly 10 is accepted
    const ten = await call("POST", "/partner/envelopes", { key: t.key, body: envelopeBody({ cc: eleven.slice(0, 10) }) });
    expect(ten.status).toBe(201);
    expect(ten.body.data.cc).toHaveLength(10);
  });

  it("answers 404 for another organization's envelope and never shows its cc recipients", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const e = await createEnvelope(a.key, { cc: CC });
    const res = await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: b.key });
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toContain("dealer.example");
  });
});
