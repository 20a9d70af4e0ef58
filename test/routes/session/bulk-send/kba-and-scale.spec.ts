import { describe, expect, it } from "vitest";
import { bulkTenant, envelopesPerClient, runToEnd, seedCustomers } from "../../../helpers/bulk";
import { takeKba } from "../../../helpers/kba";
import { invitationSlug } from "../../../helpers/signing";
import { consoleTemplate } from "../../../helpers/templates";
import { orgShardDb, shardDbOf } from "../../../helpers/shards";

const SIGN = (role: string) => `Sign {{${role}_signature;type=signature;role=${role};required=true}}`;

describe("bulk send with KBA", () => {
  it("challenges only the client signer, never the sender, and bills one verification per client", async () => {
    const t = await bulkTenant();
    const template = await consoleTemplate(t.admin, { kba: true, pages: [{ lines: [{ text: SIGN("client"), x: 72, y: 700 }, { text: SIGN("dealer"), x: 72, y: 600 }] }] });
    const batch = await t.as("POST", "/bulk-send", { name: "KBA addendum", document_source: "template", source_template_id: template.template_id, add_me_as_signer: true, preserve_signing_order: false });
    expect(batch.body.data).toMatchObject({ kba_required: true, provider_instance: "cloud" });
    const id = batch.body.data.batch_id;
    const session = await t.as("POST", "/esign/builder-session", { batch_id: id });
    expect(session.body.data).toMatchObject({ kba_required: true, roles: ["client", "dealer"] });
    const customers = await seedCustomers(t.orgId, 2);
    await t.as("POST", `/bulk-send/${id}/items`, { customer_ids: customers });
    expect((await t.as("POST", `/bulk-send/${id}/submit`)).status).toBe(202);
    expect((await runToEnd(id)).status).toBe("completed");

    const { results: signers } = await shardDbOf(id).prepare(
      `SELECT s.id, s.envelope_id, s.email, s.role, e.kba_required, e.provider_instance, (SELECT COUNT(*) FROM kba_checks k WHERE k.signer_id = s.id) AS checks
       FROM signers s JOIN bulk_items i ON i.envelope_id = s.envelope_id JOIN envelopes e ON e.id = s.envelope_id WHERE i.batch_id = ? ORDER BY i.position, s.role`,
    )
      .bind(id)
      .all<{ id: string; envelope_id: string; email: string; role: string; kba_required: number; provider_instance: string; checks: number }>();
    expect(signers.map((s) => [s.role, s.checks, s.kba_required, s.provider_instance])).toEqual([
      ["client", 1, 1, "cloud"],
      ["dealer", 0, 1, "cloud"],
      ["client", 1, 1, "cloud"],
      ["dealer", 0, 1, "cloud"],
    ]);
    expect(signers.filter((s) => s.role === "dealer").every((s) => s.email === t.senderEmail)).toBe(true);
    for (const client of signers.filter((s) => s.role === "client")) {
      const { res } = await takeKba(await invitationSlug(client.envelope_id, client.email), client.email);
      expect(res.body.data.status).toBe("passed");
    }
    const usage = await (await orgShardDb(t.orgId)).prepare("SELECT kind, COUNT(*) AS n FROM usage_lines WHERE org_id = ? GROUP BY kind ORDER BY kind").bind(t.orgId).all<{ kind: string; n: number }>();
    expect(usage.results).toEqual([
      { kind: "esign_envelope", n: 2 },
      { kind: "kba_verification", n: 2 },
    ]);
  });
});

describe("bulk send at scale", () => {
  it("sends 1,000 clients one envelope each, end to end in the Workers runtime", { timeout: 240_000 }, async () => {
    const t = await bulkTenant();
    const { readyBatch } = await import("../../../helpers/bulk");
    const customers = await seedCustomers(t.orgId, 1000);
    const { batchId } = await readyBatch(t, { customers });
    expect((await t.as("POST", `/bulk-send/${batchId}/submit`)).status).toBe(202);
    const end = await runToEnd(batchId, 20_000);
    expect(end).toMatchObject({ status: "completed", total_count: 1000, sent_count: 1000, failed_count: 0, running_count: 0 });
    const perClient = await envelopesPerClient(batchId);
    expect(perClient.size).toBe(1000);
    expect([...perClient.values()].every((n) => n === 1)).toBe(true);
    const progress = await t.as("GET", `/bulk-send/${batchId}?limit=1000`);
    expect(progress.body.data.counts).toEqual({ pending: 0, running: 0, sent: 1000, failed: 0, skipped: 0, cancelled: 0 });
    expect(progress.body.data.items.filter((i: { status: string }) => i.status === "sent")).toHaveLength(1000);
  });
});
