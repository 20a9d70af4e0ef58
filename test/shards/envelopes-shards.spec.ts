import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { shardOf } from "../../src/lib/shards";
import { call, createEnvelope, newTenant, operator } from "../helpers/api";
import { globalDb, shardDb } from "../helpers/shards";
import { invitationSlug, outboxOf, sendableEnvelope, sendEnvelope } from "../helpers/signing";
import { absolute, buildPdf, uploadTemplate } from "../helpers/templates";

// Envelopes of an organization that moved shard mid-life (docs/decisions/shards.md 2-3): its old
// envelopes stay where they were created, its new ones go to its new current shard, and every read a
// partner makes sees both as one book.

type Listed = { envelope_id: string; created_at: string; customer_id: string };

const openShard2 = async () => {
  const res = await operator("PATCH", "/shards/2", { state: "open" });
  expect(res.status, `the test pool binds SHARD_2: ${JSON.stringify(res.body)}`).toBe(200);
};

/** A fresh organization, and the shard it is on now (`from`) and the other one (`to`). */
async function tenantOnTwoShards() {
  await openShard2();
  const t = await newTenant();
  const from: number = (await operator("GET", `/orgs/${t.orgId}`)).body.data.shard_id;
  return { ...t, from, to: from === 1 ? 2 : 1 };
}

async function move(orgId: string, to: number) {
  const res = await operator("PATCH", `/orgs/${orgId}`, { current_shard_id: to });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const list = (key: string, query: string) => call<{ data: Listed[]; meta: { page: number; limit: number; total: number } }>("GET", `/partner/envelopes?${query}`, { key });

/** The list's order: newest first, the higher id first at the same instant. */
const newestFirst = (a: Listed, b: Listed) => (a.created_at === b.created_at ? (a.envelope_id < b.envelope_id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1);

describe("an organization moved to another shard keeps one book of envelopes", () => {
  it("old envelopes stay readable by id, and the list merges both shards: newest first, total over both, page 2 continues where page 1 ended", async () => {
    const t = await tenantOnTwoShards();
    const before: Listed[] = [];
    for (let i = 0; i < 3; i++) before.push((await createEnvelope(t.key)) as unknown as Listed);
    await move(t.orgId, t.to);
    const after: Listed[] = [];
    for (let i = 0; i < 2; i++) after.push((await createEnvelope(t.key)) as unknown as Listed);

    expect(before.map((e) => shardOf(e.envelope_id))).toEqual([t.from, t.from, t.from]);
    expect(after.map((e) => shardOf(e.envelope_id))).toEqual([t.to, t.to]);
    for (const e of after) expect(e.envelope_id).toMatch(new RegExp(`^env_${t.to}_[0-9a-z]{26}$`));

    // every envelope by id, on whichever shard it is, with its status poll
    for (const e of [...before, ...after]) {
      const got = await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key });
      expect(got.status, e.envelope_id).toBe(200);
      expect(got.body.data.envelope_id).toBe(e.envelope_id);
      const status = await call("GET", `/partner/envelopes/${e.envelope_id}/status`, { key: t.key });
      expect(status.status, e.envelope_id).toBe(200);
      expect(status.body.data.status).toBe("pending");
    }

    const expected = [...before, ...after].sort(newestFirst).map((e) => e.envelope_id);
    const pages: string[][] = [];
    for (const page of [1, 2, 3]) {
      const res = await list(t.key, `limit=2&page=${page}`);
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ page, limit: 2, total: 5 });
      pages.push(res.body.data.map((e) => e.envelope_id));
    }
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(expected);
    // the newest two are the ones created after the move
    expect(new Set(pages[0])).toEqual(new Set(after.map((e) => e.envelope_id)));

    // one page as large as the book: the same order, nothing twice
    const whole = await list(t.key, "limit=100");
    expect(whole.body.data.map((e) => e.envelope_id)).toEqual(expected);
    expect(whole.body.meta.total).toBe(5);
    // a filter applies on both shards: a voided old one and a voided new one
    for (const e of [before[0]!, after[0]!]) {
      expect((await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: t.key, body: { reason: "withdrawn" } })).status).toBe(200);
    }
    const voided = await list(t.key, "status=voided");
    expect(voided.body.meta.total).toBe(2);
    expect(voided.body.data.map((e) => e.envelope_id).sort()).toEqual([before[0]!.envelope_id, after[0]!.envelope_id].sort());
  });

  it("a customer used before and after the move keeps one id: copied to the new shard with it; a new customer there gets an id naming that shard", async () => {
    const t = await tenantOnTwoShards();
    const first = await createEnvelope(t.key, { customer_email: "Pat.Borrower@example.com", customer_name: "Pat Borrower" });
    await move(t.orgId, t.to);
    const second = await createEnvelope(t.key, { customer_email: "pat.borrower@EXAMPLE.com", customer_name: "Pat B." });
    expect(shardOf(second.envelope_id)).toBe(t.to);
    expect(second.customer_id).toBe(first.customer_id);
    // the new shard holds the same customer row (same id, the name first recorded), once
    const copied = await shardDb(t.to).prepare("SELECT id, name, email_normalized FROM customers WHERE org_id = ?").bind(t.orgId).all();
    expect(copied.results).toEqual([{ id: first.customer_id, name: "Pat Borrower", email_normalized: "pat.borrower@example.com" }]);
    // a third envelope for the same customer on the new shard: still that id, still one row
    const third = await createEnvelope(t.key, { customer_email: "pat.borrower@example.com" });
    expect(third.customer_id).toBe(first.customer_id);
    expect(await shardDb(t.to).prepare("SELECT COUNT(*) AS n FROM customers WHERE org_id = ?").bind(t.orgId).first("n")).toBe(1);
    // listing by that customer finds its envelopes on both shards
    const byCustomer = await list(t.key, `customer_id=${first.customer_id}`);
    expect(byCustomer.body.meta.total).toBe(3);
    expect(byCustomer.body.data.map((e) => e.envelope_id).sort()).toEqual([first, second, third].map((e) => e.envelope_id).sort());

    const stranger = await createEnvelope(t.key, { customer_email: "new.face@example.com" });
    expect(stranger.customer_id).toMatch(new RegExp(`^cust_${t.to}_[0-9a-z]{26}$`));
    expect(stranger.customer_id).not.toBe(first.customer_id);
  });

  it("the operator's usage of the month counts the envelopes of both shards", async () => {
    const t = await tenantOnTwoShards();
    await createEnvelope(t.key);
    await move(t.orgId, t.to);
    await createEnvelope(t.key);
    await createEnvelope(t.key);
    const usage = await operator("GET", `/orgs/${t.orgId}/usage`);
    expect(usage.status).toBe(200);
    expect(usage.body.data.by_kind.esign_envelope).toEqual({ quantity: 3, amount_cents: 0 });
    expect(usage.body.data.lines.map((l: { envelope_id: string }) => shardOf(l.envelope_id)).sort()).toEqual([t.from, t.to, t.to].sort());
  });

  it("an envelope made from the organization's template after the move copies the template's fields onto the new shard and sends from there", async () => {
    const t = await tenantOnTwoShards();
    const { bytes } = await buildPdf([{ lines: [{ text: "Sign here", x: 72, y: 200 }] }]);
    const template = await uploadTemplate(t.key, {
      file: bytes,
      fields: [
        absolute("vin", [{ page: 1, x: 0.1, y: 0.1, w: 0.3, h: 0.03 }], { type: "text", role: "buyer" }),
        absolute("buyer_signature", [{ page: 1, x: 0.1, y: 0.7, w: 0.3, h: 0.05 }], { required: true, role: "buyer" }),
      ],
    });
    expect(template.status, JSON.stringify(template.body)).toBe(200);
    const templateId: string = template.body.data.template_id;
    // the template is the organization's: in the global database, whatever shard its envelopes are on
    expect(await globalDb.prepare("SELECT COUNT(*) AS n FROM template_fields WHERE template_id = ?").bind(templateId).first("n")).toBe(2);
    await move(t.orgId, t.to);

    const e = await createEnvelope(t.key, { template_id: templateId, prefilled_data: { vin: "1HGCM82633A004352" } });
    expect(shardOf(e.envelope_id)).toBe(t.to);
    const fields = await shardDb(t.to).prepare("SELECT name, value, source_template_id FROM envelope_fields WHERE envelope_id = ? ORDER BY seq").bind(e.envelope_id).all();
    expect(fields.results).toEqual([
      { name: "vin", value: "1HGCM82633A004352", source_template_id: templateId },
      { name: "buyer_signature", value: null, source_template_id: templateId },
    ]);
    const doc = await shardDb(t.to).prepare("SELECT id FROM envelope_documents WHERE envelope_id = ? AND kind = 'original'").bind(e.envelope_id).first<{ id: string }>();
    expect(doc?.id).toMatch(new RegExp(`^doc_${t.to}_`));

    const sent = await call("POST", `/partner/envelopes/${e.envelope_id}/send`, {
      key: t.key,
      body: { send_email: false, signers: [{ role: "buyer", email: "buyer@example.com", name: "Jane Buyer", routing_order: 1 }] },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.data.status).toBe("sent");
    const signer = await shardDb(t.to).prepare("SELECT id FROM signers WHERE envelope_id = ?").bind(e.envelope_id).first<{ id: string }>();
    expect(signer?.id).toMatch(new RegExp(`^sgn_${t.to}_`));
  });
});

describe("GET /dev/emails across shards", () => {
  it("lists the invitations of envelopes on both shards, newest first, each outbox row's id naming its shard", async () => {
    const t = await tenantOnTwoShards();
    const old = await sendableEnvelope(t.key, ["buyer"], { customer_email: "before.move@example.com" });
    expect((await sendEnvelope(t.key, old.envelope_id)).status).toBe(200);
    await move(t.orgId, t.to);
    const fresh = await sendableEnvelope(t.key, ["buyer"], { customer_email: "after.move@example.com" });
    expect(shardOf(fresh.envelope_id)).toBe(t.to);
    expect((await sendEnvelope(t.key, fresh.envelope_id)).status).toBe(200);
    const [oldEmail] = await outboxOf(old.envelope_id);
    const [freshEmail] = await outboxOf(fresh.envelope_id);
    expect(shardOf(oldEmail!.id)).toBe(t.from);
    expect(freshEmail!.id).toMatch(new RegExp(`^eml_${t.to}_[0-9a-z]{26}$`));

    const ctx = createExecutionContext();
    const res = await app.fetch(new Request("http://localhost/dev/emails"), { ...env, DEV_PAGES: "true" }, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    const html = await res.text();
    const oldLink = `${env.EMBED_HOST}/s/${await invitationSlug(old.envelope_id, "before.move@example.com")}`;
    const freshLink = `${env.EMBED_HOST}/s/${await invitationSlug(fresh.envelope_id, "after.move@example.com")}`;
    expect(html).toContain(`<a href="${oldLink}">`);
    expect(html).toContain(`<a href="${freshLink}">`);
    expect(html.indexOf(freshLink)).toBeLessThan(html.indexOf(oldLink));
  });
});

describe("an envelope id naming a shard this deployment does not bind", () => {
  it("is the ordinary 404 on every envelope read and action, never a 500", async () => {
    const t = await newTenant();
    const id = "env_7_0123456789abcdefghjkmnpqrs";
    expect(shardOf(id)).toBe(7);
    for (const [method, path, body] of [
      ["GET", `/partner/envelopes/${id}`, undefined],
      ["GET", `/partner/envelopes/${id}/status`, undefined],
      ["GET", `/partner/envelopes/${id}/compliance`, undefined],
      ["POST", `/partner/envelopes/${id}/void`, { reason: "x" }],
      ["POST", `/partner/envelopes/${id}/send`, { signers: [{ role: "buyer", email: "a@example.com", name: "A", routing_order: 1 }] }],
    ] as const) {
      const res = await call(method, path, { key: t.key, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
      expect(res.body.error).toMatch(/Envelope not found/);
    }
  });
});
