import { describe, expect, it } from "vitest";
import { shardOf } from "../../src/lib/shards";
import { call, createEnvelope, newTenant, operator } from "../helpers/api";
import { takeKba, usageLinesOf } from "../helpers/kba";
import { invitationSlug } from "../helpers/signing";
import { globalDb, shardDb } from "../helpers/shards";
import { consoleTemplate, memberToken } from "../helpers/templates";

/**
 * KBA on a second shard (docs/decisions/shards.md 1: `kba_checks`, `kba_sessions`, `kba_results`,
 * `usage_lines` are per envelope): a signer of a shard-2 envelope takes the identity check through
 * their permanent slug; the session, the result and the billed usage line are on shard 2, with ids
 * naming it, and none in the global database. Needs the test pool to bind SHARD_2.
 */
describe("KBA of a signer on shard 2", () => {
  it("keeps the check, question set, result and usage line on the envelope's shard, tagged with it", async () => {
    const t = await newTenant({ name: "Prairie Second Shard" });
    const open = await operator("PATCH", "/shards/2", { state: "open" });
    expect(open.status, `the test pool binds SHARD_2: ${JSON.stringify(open.body)}`).toBe(200);
    expect((await operator("PATCH", `/orgs/${t.orgId}`, { current_shard_id: 2 })).status).toBe(200);

    const bearer = await memberToken(t.orgId, "admin");
    const template = await consoleTemplate(bearer, { kba: true, pages: [{ lines: [{ text: "Sign {{buyer_signature;type=signature;role=buyer;required=true}}", x: 72, y: 700 }] }] });
    const e = await createEnvelope(t.key, { template_id: template.template_id });
    expect(shardOf(e.envelope_id)).toBe(2);
    const email = `jane.${crypto.randomUUID().slice(0, 8)}@example.com`;
    const sent = await call("POST", `/partner/envelopes/${e.envelope_id}/send`, { key: t.key, body: { signers: [{ role: "buyer", email, name: "Jane Buyer", routing_order: 1 }] } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);

    const slug = await invitationSlug(e.envelope_id, email);
    expect(shardOf(slug)).toBe(2);
    const { session, res } = await takeKba(slug, email);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.status).toBe("passed");
    expect(session.session_id).toMatch(/^kbas_2_[0-9a-z]{26}$/);

    const db = shardDb(2);
    expect(await db.prepare("SELECT status FROM kba_checks WHERE envelope_id = ?").bind(e.envelope_id).first("status")).toBe("passed");
    const results = (await db.prepare("SELECT id, status FROM kba_results WHERE envelope_id = ?").bind(e.envelope_id).all<{ id: string; status: string }>()).results;
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ id: expect.stringMatching(/^kbar_2_[0-9a-z]{26}$/), status: "passed" });
    const usage = (await usageLinesOf(t.orgId)).filter((l) => l.envelope_id === e.envelope_id);
    expect(usage).toHaveLength(1);
    expect(await db.prepare("SELECT COUNT(*) AS n FROM usage_lines WHERE envelope_id = ? AND kind = 'kba_verification'").bind(e.envelope_id).first("n")).toBe(1);
    for (const table of ["kba_checks", "kba_sessions", "kba_results", "usage_lines"]) {
      expect(await globalDb.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE envelope_id = ?`).bind(e.envelope_id).first("n"), table).toBe(0);
    }

    // the signer goes on to the document on the same shard
    const opened = await call("GET", `/signing/${slug}`);
    expect(opened.status).toBe(200);
    expect(opened.body.data.kba).toMatchObject({ status: "passed" });
  });
});
