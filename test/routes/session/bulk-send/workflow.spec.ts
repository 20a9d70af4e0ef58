import { describe, expect, it } from "vitest";
import { batchRow, bulkStub, bulkTenant, envelopesPerClient, readyBatch, runToEnd, seedCustomers } from "../../../helpers/bulk";
import { orgShardDb, shardDbOf } from "../../../helpers/shards";
import { call } from "../../../helpers/api";

async function signersOf(envelopeId: string) {
  const { results } = await shardDbOf(envelopeId).prepare("SELECT role, email, name, routing_order FROM signers WHERE envelope_id = ? ORDER BY routing_order, role").bind(envelopeId).all<{ role: string; email: string; name: string; routing_order: number }>();
  return results;
}
async function invitedEmails(envelopeId: string) {
  const { results } = await shardDbOf(envelopeId).prepare("SELECT to_email FROM email_outbox WHERE envelope_id = ? ORDER BY to_email").bind(envelopeId).all<{ to_email: string }>();
  return results.map((r) => r.to_email);
}

describe("bulk send: the workflow sends one ordinary envelope per client", () => {
  it("sends every client its envelope, preparing then sent, stamped with the batch, and completes the batch", async () => {
    const t = await bulkTenant();
    const customers = await seedCustomers(t.orgId, 3, { contact: (i) => (i === 0 ? "Pat Contact" : null) });
    const { batchId } = await readyBatch(t, { customers, batch: { tag_ids: ["tag_rates"] } });
    const submitted = await t.as("POST", `/bulk-send/${batchId}/submit`);
    expect(submitted.status).toBe(202);
    expect(submitted.body.data.status).toBe("running");

    const end = await runToEnd(batchId);
    expect(end.status).toBe("completed");
    const progress = await t.as("GET", `/bulk-send/${batchId}`);
    expect(progress.status).toBe(200);
    expect(progress.body.data.batch).toMatchObject({ batch_id: batchId, status: "completed", total_count: 3, sent_count: 3, failed_count: 0, skipped_count: 0 });
    expect(progress.body.data.counts).toEqual({ pending: 0, running: 0, sent: 3, failed: 0, skipped: 0, cancelled: 0 });
    for (const item of progress.body.data.items) {
      expect(item.status).toBe("sent");
      expect(item.sent_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const e = await t.as("GET", `/partner/envelopes/${item.envelope_id}`);
      void e;
      const row = await shardDbOf(item.envelope_id).prepare("SELECT status, customer_id, name, metadata FROM envelopes WHERE id = ?").bind(item.envelope_id).first<{ status: string; customer_id: string; name: string; metadata: string }>();
      expect(row!.status).toBe("sent");
      expect(row!.customer_id).toBe(item.customer_id);
      expect(row!.name).toBe("Rate change addendum");
      expect(JSON.parse(row!.metadata)).toMatchObject({ bulk_send: { batch_id: batchId, item_id: item.item_id }, tag_ids: ["tag_rates"] });
    }
    // the client's primary contact signs, falling back to the client's name
    const first = progress.body.data.items[0];
    expect((await signersOf(first.envelope_id))[0]).toMatchObject({ name: "Pat Contact", email: first.email.toLowerCase() });
    expect((await signersOf(progress.body.data.items[1].envelope_id))[0]!.name).toBe("Client 1");
    expect([...(await envelopesPerClient(batchId)).values()]).toEqual([1, 1, 1]);

    // the envelope.created audit entry records the batch; each envelope counts once toward e-sign usage
    const audit = await shardDbOf(first.envelope_id).prepare("SELECT data FROM audit_log WHERE chain_id = ? AND action = 'envelope.created'").bind(first.envelope_id).first<{ data: string }>();
    expect(JSON.parse(audit!.data).bulk_send).toEqual({ batch_id: batchId, item_id: first.item_id });
    const usage = await (await orgShardDb(t.orgId)).prepare("SELECT kind, COUNT(*) AS n FROM usage_lines WHERE org_id = ? GROUP BY kind").bind(t.orgId).all<{ kind: string; n: number }>();
    expect(usage.results).toEqual([{ kind: "esign_envelope", n: 3 }]);
  });

  it.each([
    { preserve: true, addMe: true, orders: [1, 2], invited: ["client"] },
    { preserve: true, addMe: false, orders: [1], invited: ["client"] },
    { preserve: false, addMe: true, orders: [1, 1], invited: ["client", "sender"] },
    { preserve: false, addMe: false, orders: [1], invited: ["client"] },
  ])("addresses signers per the table: preserve_signing_order $preserve, add_me_as_signer $addMe", async ({ preserve, addMe, orders, invited }) => {
    const t = await bulkTenant();
    const { batchId } = await readyBatch(t, { n: 1, roles: addMe ? ["client", "dealer"] : ["client"], batch: { preserve_signing_order: preserve, add_me_as_signer: addMe } });
    expect((await t.as("POST", `/bulk-send/${batchId}/submit`)).status).toBe(202);
    expect((await runToEnd(batchId)).status).toBe("completed");
    const item = (await t.as("GET", `/bulk-send/${batchId}`)).body.data.items[0];
    const signers = await signersOf(item.envelope_id);
    expect(signers.map((s) => s.routing_order)).toEqual(orders);
    expect(signers[0]).toMatchObject({ role: "client", email: item.email.toLowerCase() });
    if (addMe) expect(signers[1]).toMatchObject({ role: "dealer", email: t.senderEmail, name: "Sam Sender" });
    const who = (email: string) => (email === t.senderEmail ? "sender" : "client");
    expect((await invitedEmails(item.envelope_id)).map(who).sort()).toEqual(invited.sort());
  });

  it("a client given a phone signs after a texted code (auth sms_otp), as on a single send; the others with the link alone; a phone not in E.164 is refused", async () => {
    const t = await bulkTenant();
    const customers = await seedCustomers(t.orgId, 2);
    const { batchId } = await readyBatch(t, { customers });
    const bad = await t.as("POST", `/bulk-send/${batchId}/items`, { customer_ids: customers, phones: { [customers[0]!]: "956-555-0123" } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body.details)).toContain("phones");
    const set = await t.as("POST", `/bulk-send/${batchId}/items`, { customer_ids: customers, phones: { [customers[0]!]: "+19565550123" } });
    expect(set.status).toBe(200);
    expect((await t.as("POST", `/bulk-send/${batchId}/submit`)).status).toBe(202);
    expect((await runToEnd(batchId)).status).toBe("completed");

    const items = (await t.as("GET", `/bulk-send/${batchId}`)).body.data.items as { customer_id: string; phone: string | null; envelope_id: string; status: string }[];
    const texted = items.find((i) => i.customer_id === customers[0])!;
    const plain = items.find((i) => i.customer_id === customers[1])!;
    expect(texted).toMatchObject({ status: "sent", phone: "+1******0123" });
    expect(plain).toMatchObject({ status: "sent", phone: null });
    // the partner reads the client's signer as one sent with auth sms_otp, not yet verified
    const signer = async (envelopeId: string) => (await call("GET", `/partner/envelopes/${envelopeId}`, { key: t.key })).body.data.signers[0];
    expect(await signer(texted.envelope_id)).toMatchObject({ auth: "sms_otp", otp: { phone: "+1******0123", verified: false } });
    expect(await signer(plain.envelope_id)).toMatchObject({ auth: null, otp: null });
  });

  it("sends a client of a group exactly as a client sent on its own: same audit entries, events, signers and invitation", async () => {
    const t = await bulkTenant();
    const grouped = await readyBatch(t, { n: 2, roles: ["client", "dealer"], batch: { add_me_as_signer: true } });
    const alone = await readyBatch(t, { n: 2, roles: ["client", "dealer"], batch: { add_me_as_signer: true } });
    // the group's creation batch fails: its clients are created and sent one by one (createBulkEnvelope, sendEnvelope)
    await bulkStub(alone.batchId).armCrashes(["fail:before_create"]);
    for (const { batchId } of [grouped, alone]) {
      expect((await t.as("POST", `/bulk-send/${batchId}/submit`)).status).toBe(202);
      expect(await runToEnd(batchId)).toMatchObject({ status: "completed", sent_count: 2 });
    }
    expect((await bulkStub(alone.batchId).state()).crashes).toEqual([]);
    const shape = async (batchId: string) => {
      const { results: items } = await shardDbOf(batchId).prepare("SELECT envelope_id FROM bulk_items WHERE batch_id = ? ORDER BY position").bind(batchId).all<{ envelope_id: string }>();
      return Promise.all(
        items.map(async ({ envelope_id: id }) => {
          const audit = await shardDbOf(id).prepare("SELECT action, actor_type, data FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(id).all<{ action: string; actor_type: string; data: string }>();
          const events = await shardDbOf(id).prepare("SELECT type, data FROM events WHERE envelope_id = ? ORDER BY type").bind(id).all<{ type: string; data: string }>();
          const envelope = await shardDbOf(id).prepare("SELECT status, audit_seq, expires_at IS NOT NULL AS expires, metadata FROM envelopes WHERE id = ?").bind(id).first<{ metadata: string }>();
          // each batch has its own source template
          const { bulk_send, source_template_id, ...metadata } = JSON.parse(envelope!.metadata) as Record<string, unknown>;
          const emails = await shardDbOf(id).prepare("SELECT kind, to_name, subject, length(link_url) AS link FROM email_outbox WHERE envelope_id = ? ORDER BY to_name").bind(id).all();
          return {
            audit: audit.results.map((a) => {
              const data = JSON.parse(a.data) as Record<string, unknown> & { signers?: { role: string; routing_order: number }[] };
              return [a.action, a.actor_type, Object.keys(data).sort(), data.from ?? null, data.to ?? null, data.signers?.map((x) => [x.role, x.routing_order]) ?? null];
            }),
            events: events.results.map((e) => [e.type, Object.keys(JSON.parse(e.data)).sort()]),
            envelope: { ...envelope, metadata, bulk_send: Object.keys(bulk_send as object), source_template_id: typeof source_template_id },
            signers: (await signersOf(id)).map((x) => [x.role, x.routing_order, x.name]),
            emails: emails.results,
          };
        }),
      );
    };
    expect(await shape(grouped.batchId)).toEqual(await shape(alone.batchId));
  });

  it("stops at a cancel: every client pending at the cancel is cancelled and none of them is sent; sent ones stay sent", async () => {
    const t = await bulkTenant();
    const n = 300;
    const { batchId } = await readyBatch(t, { n });
    expect((await t.as("POST", `/bulk-send/${batchId}/submit`)).status).toBe(202);
    while (((await batchRow(batchId))!.sent_count) === 0) await new Promise((r) => setTimeout(r, 5));
    const cancelled = await t.as("POST", `/bulk-send/${batchId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.status).toBe("cancelled");
    const atCancel = (await batchRow(batchId))!;
    expect(atCancel.cancelled_count).toBeGreaterThan(0);
    const end = await runToEnd(batchId);
    expect(end.status).toBe("cancelled");
    // what was claimed before the cancel finished; nothing pending at the cancel was sent
    expect(end.cancelled_count).toBe(atCancel.cancelled_count);
    expect(end.sent_count).toBe(n - atCancel.cancelled_count);
    const progress = await t.as("GET", `/bulk-send/${batchId}?status=cancelled&limit=1000`);
    expect(progress.body.data.counts).toEqual({ pending: 0, running: 0, sent: end.sent_count, failed: 0, skipped: 0, cancelled: end.cancelled_count });
    expect(progress.body.data.items.every((i: { envelope_id: string | null }) => i.envelope_id === null)).toBe(true);
    expect(progress.body.meta.total).toBe(end.cancelled_count);
    const envelopes = await envelopesPerClient(batchId);
    expect(envelopes.size).toBe(end.sent_count);
    expect((await t.as("POST", `/bulk-send/${batchId}/cancel`)).status).toBe(409);
  });
});
