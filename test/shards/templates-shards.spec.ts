import { describe, expect, it } from "vitest";
import { isShardTagged, shardOf } from "../../src/lib/shards";
import { call, createEnvelope, newTenant } from "../helpers/api";
import { consoleTemplate, memberToken } from "../helpers/templates";
import { globalDb, shardDb } from "../helpers/shards";

/**
 * Templates across shards (docs/decisions/shards.md 1): the organization's own templates, their fields
 * and provider counterparts are global (read by creates on any of its shards); a builder working copy
 * is a row of its envelope's shard, with an id naming it. Needs the test pool to bind SHARD_2 as a
 * database of its own.
 */

async function tenantOnShard2() {
  const t = await newTenant({ name: "Template Shard Motors", shard: 2 });
  return { ...t, bearer: await memberToken(t.orgId) };
}

const count = async (db: D1Database, sql: string, ...binds: unknown[]) => (await db.prepare(sql).bind(...binds).first<number>("n")) ?? 0;

describe("templates on a sharded deployment", () => {
  it("a template the organization creates while on shard 2 is global, listed and read from there", async () => {
    const t = await tenantOnShard2();
    const tpl = await consoleTemplate(t.bearer, {
      name: "Buyer's order",
      pages: [{ lines: [{ text: "Sign {{buyer_signature;type=signature;role=buyer}}", x: 72, y: 300 }] }],
    });
    expect(isShardTagged(tpl.template_id)).toBe(false);
    expect(await count(globalDb, "SELECT COUNT(*) AS n FROM templates WHERE id = ? AND org_id = ?", tpl.template_id, t.orgId)).toBe(1);
    expect(await count(globalDb, "SELECT COUNT(*) AS n FROM template_fields WHERE template_id = ?", tpl.template_id)).toBe(1);
    expect(await count(globalDb, "SELECT COUNT(*) AS n FROM signing_provider_templates WHERE template_id = ?", tpl.template_id)).toBe(1);
    expect(await count(shardDb(2), "SELECT COUNT(*) AS n FROM templates WHERE id = ?", tpl.template_id)).toBe(0);
    expect(await count(shardDb(2), "SELECT COUNT(*) AS n FROM signing_provider_templates WHERE template_id = ?", tpl.template_id)).toBe(0);
    // its org-chain entry is global too
    expect(await count(globalDb, "SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action = 'template.created'", t.orgId)).toBe(1);

    const list = await call("GET", "/partner/templates", { key: t.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: { template_id: string }) => x.template_id)).toEqual([tpl.template_id]);
    const read = await call("GET", `/templates/${tpl.template_id}`, { bearer: t.bearer, headers: { "X-Org-Id": t.orgId } });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.data.fields).toHaveLength(1);

    // an envelope made from it on shard 2 carries its fields (read from global, written on the shard)
    const envelope = await createEnvelope(t.key, { template_id: tpl.template_id });
    expect(shardOf(envelope.envelope_id)).toBe(2);
    expect(await count(shardDb(2), "SELECT COUNT(*) AS n FROM envelope_fields WHERE envelope_id = ? AND source_template_id = ?", envelope.envelope_id, tpl.template_id)).toBe(1);
  });

  it("a builder working copy is a row of its envelope's shard, with its provider counterpart, and reads back from there", async () => {
    const t = await tenantOnShard2();
    const source = await consoleTemplate(t.bearer, {
      name: "Source",
      pages: [{ lines: [{ text: "Sign {{buyer_signature;type=signature;role=buyer}}", x: 72, y: 300 }] }],
    });
    const envelope = await createEnvelope(t.key);
    expect(shardOf(envelope.envelope_id)).toBe(2);
    const opened = await call("POST", "/esign/builder-session", { bearer: t.bearer, headers: { "X-Org-Id": t.orgId }, body: { envelope_id: envelope.envelope_id, template_id: source.template_id } });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const copy = opened.body.data.template_id as string;
    expect(copy).toMatch(/^tmpl_2_[0-9a-z]{26}$/);
    expect(opened.body.data.session_id).toMatch(/^bld_2_/);

    const two = shardDb(2);
    expect(await count(two, "SELECT COUNT(*) AS n FROM templates WHERE id = ? AND origin = 'builder'", copy)).toBe(1);
    expect(await count(two, "SELECT COUNT(*) AS n FROM template_fields WHERE template_id = ?", copy)).toBe(1);
    expect(await count(two, "SELECT COUNT(*) AS n FROM signing_provider_templates WHERE template_id = ?", copy)).toBe(1);
    expect(await count(two, "SELECT COUNT(*) AS n FROM builder_sessions WHERE envelope_id = ? AND template_id = ?", envelope.envelope_id, copy)).toBe(1);
    expect(await count(globalDb, "SELECT COUNT(*) AS n FROM templates WHERE id = ?", copy)).toBe(0);
    expect(await count(globalDb, "SELECT COUNT(*) AS n FROM signing_provider_templates WHERE template_id = ?", copy)).toBe(0);
    // the envelope now has the copy's document and fields, on its shard
    expect(await count(two, "SELECT COUNT(*) AS n FROM envelope_fields WHERE envelope_id = ?", envelope.envelope_id)).toBe(1);

    // the copy reads back by its id; the organization's template list (global) does not show it
    const read = await call("GET", `/templates/${copy}`, { bearer: t.bearer, headers: { "X-Org-Id": t.orgId } });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.data).toMatchObject({ template_id: copy });
    const list = await call("GET", "/partner/templates", { key: t.key });
    expect(list.body.data.map((x: { template_id: string }) => x.template_id)).toEqual([source.template_id]);

    // reopening continues the same copy
    const again = await call("POST", "/esign/builder-session", { bearer: t.bearer, headers: { "X-Org-Id": t.orgId }, body: { envelope_id: envelope.envelope_id } });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.body.data).toMatchObject({ template_id: copy, continued: true });
  });

  it("a template id naming a shard this deployment does not bind is an ordinary 404", async () => {
    const t = await tenantOnShard2();
    const res = await call("GET", `/templates/tmpl_77_${"0".repeat(26)}`, { bearer: t.bearer, headers: { "X-Org-Id": t.orgId } });
    expect(res.status).toBe(404);
  });
});
