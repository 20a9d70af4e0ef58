import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { runBulkChunk } from "../../src/services/bulk/run-chunk";
import { POOL_CHUNK, runPoolChunk } from "../../src/services/pools/move-pool";
import { publishEvents } from "../../src/services/webhooks/publish";
import { MAX_SIGNERS } from "../../src/services/signers/schema";
import { newTenant } from "../helpers/api";
import { bulkTenant, readyBatch, seedCustomers } from "../helpers/bulk";
import { invitationSlug } from "../helpers/signing";
import { signing, TINY_PNG } from "../helpers/signing-flow";
import { countedCall, countedContext, D1_STATEMENTS_PER_INVOCATION, repeatedStatements, type CountedResponse, type StatementTally } from "../helpers/statement-budget";
import { absolute, buildPdf } from "../helpers/templates";
import { adminToken, createEndpoint, receiverUrl } from "../helpers/webhooks";
import { shardDbOf } from "../helpers/shards";
import { party } from "../helpers/control";
import { moves, offeredPool, vaultedRecords } from "../helpers/pools";

/** Fails naming the statements that repeat, so the loop that runs them is easy to find. */
function expectWithinBudget(what: string, tally: Pick<StatementTally, "statements" | "sql">) {
  expect(tally.statements, `${what} ran ${tally.statements} D1 statements in one invocation:\n${repeatedStatements(tally as StatementTally)}`).toBeLessThanOrEqual(
    D1_STATEMENTS_PER_INVOCATION,
  );
}

function expectOk(res: CountedResponse, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
}

/** The organization's maximum of webhook endpoints, each subscribed to every event: the widest fan-out. */
async function everyEndpoint(orgId: string, count = 25) {
  const token = await adminToken(orgId);
  for (let i = 0; i < count; i++) await createEndpoint(token, { url: receiverUrl("ok").url });
}

/** A Durable Object namespace whose batch objects accept `start` and do nothing: the test runs the chunks itself. */
const idleBulkNamespace = {
  idFromName: (name: string) => env.BULK_BATCH!.idFromName(name),
  get: () => ({ start: async () => {} }),
} as unknown as Env["BULK_BATCH"];

/**
 * Submits a 60-client batch (its Durable Object stood in for, so nothing runs behind the test's back)
 * and runs its chunks as the object's alarms would, each under its own count: the submit request's
 * tally, then each chunk's.
 */
async function bulkSendChunks(opts: { endpoints: number }): Promise<[string, StatementTally][]> {
  const t = await bulkTenant();
  if (opts.endpoints > 0) await everyEndpoint(t.orgId, opts.endpoints);
  const { batchId } = await readyBatch(t, { n: 60 });
  const submit = await countedCall("POST", `/bulk-send/${batchId}/submit`, { bearer: t.admin, headers: { "X-Org-Id": t.orgId }, body: {}, bindings: { BULK_BATCH: idleBulkNamespace } });
  expectOk(submit, 202);
  const tallies: [string, StatementTally][] = [["POST /bulk-send/:id/submit", submit.tally]];
  for (let chunk = 0; chunk < 5; chunk++) {
    const tally: StatementTally = { statements: 0, sql: [] };
    const { ctx, settled } = countedContext(tally, { publisher: publishEvents });
    const outcome = await runBulkChunk(ctx, { batchId, orgId: t.orgId, hooks: { checkpoint: () => {} } });
    await settled();
    tallies.push([`bulk chunk ${chunk + 1}`, tally]);
    if (outcome === "done") break;
  }
  const batch = await shardDbOf(batchId).prepare("SELECT status, sent_count FROM bulk_batches WHERE id = ?").bind(batchId).first<{ status: string; sent_count: number }>();
  expect(batch).toEqual({ status: "completed", sent_count: 60 });
  return tallies;
}


/** `POST /partner/templates` of a generated PDF with these fields, its statements counted. */
async function uploadCountedTemplate(key: string, name: string, pages: Parameters<typeof buildPdf>[0], fields: unknown[]) {
  const { bytes } = await buildPdf(pages);
  const form = new FormData();
  form.append("file", new File([bytes], "template.pdf", { type: "application/pdf" }));
  form.append("name", name);
  form.append("fields_json", JSON.stringify(fields));
  return countedCall("POST", "/partner/templates", { key, form });
}

describe("no request path runs more than D1's 1,000 statements per invocation", () => {
  it("the counter sees a request's statements, batched or not", async () => {
    const t = await newTenant();
    const res = await countedCall("GET", "/partner/envelopes", { key: t.key });
    expectOk(res);
    expect(res.statements).toBeGreaterThan(0);
    expect(res.tally.sql.length).toBe(res.statements);
  });

  it("setting 1,000 clients of a bulk batch", async () => {
    const t = await bulkTenant();
    const { batchId } = await readyBatch(t, { n: 1 });
    const customers = await seedCustomers(t.orgId, 1000, { email: (i) => (i % 10 === 0 ? null : `client${i}-${crypto.randomUUID().slice(0, 6)}@example.com`) });
    const res = await countedCall("POST", `/bulk-send/${batchId}/items`, { bearer: t.admin, headers: { "X-Org-Id": t.orgId }, body: { customer_ids: customers } });
    expectOk(res);
    expect(res.body.data).toMatchObject({ added: 1000, rejected: [] });
    expect(res.body.data.skipped_no_email).toHaveLength(100);
    expectWithinBudget("POST /bulk-send/:id/items with 1,000 clients", res.tally);
    const items = await shardDbOf(batchId).prepare("SELECT COUNT(*) AS n, COUNT(DISTINCT position) AS positions, SUM(status = 'skipped') AS skipped FROM bulk_items WHERE batch_id = ?")
      .bind(batchId)
      .first<{ n: number; positions: number; skipped: number }>();
    expect(items).toEqual({ n: 1000, positions: 1000, skipped: 100 });
  });

  it("a bulk send: its submit, and each chunk of envelopes created and sent (one Durable Object alarm each)", async () => {
    const chunks = await bulkSendChunks({ endpoints: 0 });
    for (const [what, tally] of chunks) expectWithinBudget(what, tally);
  });

  it("a bulk send chunk fanned out to 25 endpoints stays within the budget", async () => {
    const chunks = await bulkSendChunks({ endpoints: 25 });
    for (const [what, tally] of chunks) expectWithinBudget(`${what} with 25 endpoints`, tally);
  });

  it(`an accepted pool's alarm of ${POOL_CHUNK} records stays within the budget (counted on pools of 2 and 6 records, projected to ${POOL_CHUNK})`, async () => {
    const [seller, buyer] = [await party("Budget Seller"), await party("Budget Buyer")];
    // the pool's Durable Object stood in for: the test runs its chunk itself, under its own count
    const idle = { idFromName: (name: string) => env.POOL_TRANSFER!.idFromName(name), get: () => ({ start: async () => {} }) } as unknown as Env["POOL_TRANSFER"];
    /** One pool of `n` records accepted and moved in one chunk (with its completion), counted. */
    const countedPool = async (n: number) => {
      const records = await vaultedRecords(seller, n);
      const pool = await offeredPool(seller, buyer, records.map((r) => r.vaultId));
      expectOk(await countedCall("POST", `/partner/vault/pools/${pool.pool_id}/accept`, { key: buyer.key, bindings: { POOL_TRANSFER: idle } }));
      const tally: StatementTally = { statements: 0, sql: [] };
      const { ctx, settled } = countedContext(tally, { publisher: publishEvents });
      expect(await runPoolChunk(ctx, { poolId: pool.pool_id, hooks: { checkpoint: () => {} } })).toBe("done");
      await settled();
      for (const r of records) expect(await moves(r.envelopeId)).toEqual([{ pool_id: pool.pool_id, to_org_id: buyer.orgId }]);
      return tally;
    };
    const [small, large] = [await countedPool(2), await countedPool(6)];
    // a chunk reads its records together: a fixed cost (the pool, its holds, one batch of reads per kind, the
    // parties' names and key history, the completion) and what each record adds (its writes); both measured
    const perRecord = (large.statements - small.statements) / 4;
    const fixed = small.statements - 2 * perRecord;
    expect(perRecord, "each record adds its batch's writes only: its reads are shared with the chunk").toBeLessThanOrEqual(6);
    expectWithinBudget(`a pool chunk of ${POOL_CHUNK} (${fixed} fixed + ${perRecord} a record, counted on 2 and 6)`, {
      statements: Math.ceil(fixed + perRecord * POOL_CHUNK),
      sql: large.sql,
    });
  }, 300_000);

  it("a template of 500 fields is stored in a handful of statements, its fields numbered in order", async () => {
    const t = await newTenant();
    const fields = Array.from({ length: 500 }, (_, i) =>
      absolute(`note${i + 1}`, [{ page: 1, x: 0.05 + (i % 10) * 0.09, y: 0.05 + Math.floor(i / 10) * 0.018, w: 0.08, h: 0.015 }], { role: "client", type: "text" }),
    );
    const template = await uploadCountedTemplate(t.key, "Schedule of notes", [{ lines: [{ text: "Schedule of notes", x: 72, y: 740 }] }], fields);
    expectOk(template);
    // one statement per field ran 506 here; the fields now go in as one INSERT
    expect(template.statements, repeatedStatements(template.tally)).toBeLessThan(20);
    const { results } = await env.DB.prepare("SELECT seq, name FROM template_fields WHERE template_id = ? ORDER BY rowid")
      .bind(template.body.data.template_id)
      .all<{ seq: number; name: string }>();
    expect(results).toEqual(fields.map((f, i) => ({ seq: i + 1, name: f.name })));
  });

  it(`an envelope of ${MAX_SIGNERS} signers and 500 fields: template, create, send, each signer's submit, completion, vault-in; fanned out to 25 endpoints`, async () => {
    const t = await newTenant();
    await everyEndpoint(t.orgId);
    const roles = Array.from({ length: MAX_SIGNERS }, (_, i) => `party${i + 1}`);
    const fields = roles.flatMap((role, r) => [
      absolute(`${role}_signature`, [{ page: 1, x: 0.05 + (r % 5) * 0.18, y: 0.05 + Math.floor(r / 5) * 0.09, w: 0.15, h: 0.03 }], { role, required: true }),
      ...Array.from({ length: 9 }, (_, f) => absolute(`${role}_note${f + 1}`, [{ page: 2, x: 0.05 + (r % 5) * 0.18, y: 0.05 + Math.floor(r / 5) * 0.09 + f * 0.009, w: 0.15, h: 0.008 }], { role, type: "text" })),
    ]);
    const template = await uploadCountedTemplate(t.key, "Syndicated loan agreement", [{ lines: [{ text: "Syndicated loan agreement", x: 72, y: 740 }] }, { lines: [{ text: "Notes", x: 72, y: 740 }] }], fields);
    expectOk(template);
    expectWithinBudget("POST /partner/templates with 500 fields", template.tally);

    const created = await countedCall("POST", "/partner/envelopes", {
      key: t.key,
      body: { envelope_name: "Syndicated loan", customer_email: "borrower@example.com", customer_name: "Borrower", template_id: template.body.data.template_id },
    });
    expectOk(created, 201);
    expectWithinBudget("POST /partner/envelopes from a 500-field template", created.tally);
    const envelopeId = created.body.data.envelope_id as string;

    const signers = roles.map((role, i) => ({ role, email: `${role}@lenders.example`, name: `Lender ${i + 1}`, routing_order: 1 }));
    const sent = await countedCall("POST", `/partner/envelopes/${envelopeId}/send`, { key: t.key, body: { signers } });
    expectOk(sent);
    expectWithinBudget(`POST /partner/envelopes/:id/send to ${MAX_SIGNERS} signers`, sent.tally);

    const values = (role: string) => ({
      [`${role}_signature`]: TINY_PNG,
      ...Object.fromEntries(Array.from({ length: 9 }, (_, f) => [`${role}_note${f + 1}`, `note ${f + 1} of ${role}`])),
    });
    for (const s of signers.slice(0, -1)) {
      const slug = await invitationSlug(envelopeId, s.email);
      expect((await signing("POST", slug, "submit", { values: values(s.role) })).status).toBe(200);
    }
    const last = signers[signers.length - 1]!;
    const completion = await countedCall("POST", `/signing/${await invitationSlug(envelopeId, last.email)}/submit`, { body: { values: values(last.role) } });
    expectOk(completion);
    expect(completion.body.data).toMatchObject({ completed: true });
    expectWithinBudget(`the completing submit of ${MAX_SIGNERS} signers and 500 fields`, completion.tally);

    const vaulted = await countedCall("POST", `/partner/envelopes/${envelopeId}/vault-in-signed`, { key: t.key, body: {} });
    expectOk(vaulted);
    expectWithinBudget("POST /partner/envelopes/:id/vault-in-signed", vaulted.tally);
  }, 300_000);
});
