import { env, runDurableObjectAlarm } from "cloudflare:test";
import { call, newTenant, operator, type ApiResponse } from "./api";
import { orgShardNumber, shardDb, shardDbOf } from "./shards";
import { templateWithRoles } from "./signing";

/** An organization with an admin whose email is known (the sender of its batches), and a partner key. */
export async function bulkTenant(name = "Prairie Auto Group") {
  const t = await newTenant({ name });
  const senderEmail = `sender-${crypto.randomUUID().slice(0, 8)}@prairie.example`;
  const user = await operator("POST", `/orgs/${t.orgId}/users`, { email: senderEmail, name: "Sam Sender", role: "admin" });
  if (user.status !== 201) throw new Error(`user create failed: ${JSON.stringify(user.body)}`);
  const token = await operator("POST", `/users/${user.body.data.user_id}/access-tokens`, { org_id: t.orgId, ttl_seconds: 3600 });
  const admin = token.body.data.access_token as string;
  /** a console call as this admin, with X-Org-Id as spec 4.8 asks */
  const as = (method: string, path: string, body?: unknown, bearer = admin): Promise<ApiResponse> =>
    call(method, path, { bearer, body, headers: { "X-Org-Id": t.orgId } });
  return { ...t, admin, senderEmail, userId: user.body.data.user_id as string, as };
}
export type BulkTenant = Awaited<ReturnType<typeof bulkTenant>>;

/** Customers written straight into D1 (a dealer's book, 1,000 at a time if need be). */
export async function seedCustomers(orgId: string, n: number, opts: { email?: (i: number) => string | null; contact?: (i: number) => string | null } = {}): Promise<string[]> {
  const at = new Date().toISOString();
  const tag = crypto.randomUUID().slice(0, 8);
  // on the organization's current shard, each id naming that shard as a customer created there would
  const shard = await orgShardNumber(orgId);
  const rows = Array.from({ length: n }, (_, i) => {
    const email = opts.email ? opts.email(i) : `client${i}-${tag}@example.com`;
    return { id: `cust_${shard}_${tag}${String(i).padStart(18, "0")}`, name: `Client ${i}`, email, contact: opts.contact?.(i) ?? null };
  });
  const db = shardDb(shard);
  const stmts = rows.map((r) =>
    db.prepare("INSERT INTO customers (id, org_id, name, email, email_normalized, primary_contact_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").bind(
      r.id,
      orgId,
      r.name,
      r.email,
      r.email?.toLowerCase() ?? null,
      r.contact,
      at,
      at,
    ),
  );
  for (let i = 0; i < stmts.length; i += 200) await db.batch(stmts.slice(i, i + 200));
  return rows.map((r) => r.id);
}

/**
 * A batch ready to submit: from a partner template whose fields name `roles` (one signature each and a
 * `customer_name` text field for the client), its master opened in the builder, and `n` clients.
 */
export async function readyBatch(t: BulkTenant, opts: { n?: number; roles?: string[]; batch?: Record<string, unknown>; customers?: string[] } = {}) {
  const roles = opts.roles ?? ["client"];
  const templateId = await templateWithRoles(t.key, roles);
  const created = await t.as("POST", "/bulk-send", { name: "Rate change addendum", document_source: "template", source_template_id: templateId, ...opts.batch });
  if (created.status !== 201) throw new Error(`batch create failed: ${created.status} ${JSON.stringify(created.body)}`);
  const batchId = created.body.data.batch_id as string;
  const session = await t.as("POST", "/esign/builder-session", { batch_id: batchId });
  if (session.status !== 201) throw new Error(`builder session failed: ${session.status} ${JSON.stringify(session.body)}`);
  const customers = opts.customers ?? (await seedCustomers(t.orgId, opts.n ?? 3));
  const items = await t.as("POST", `/bulk-send/${batchId}/items`, { customer_ids: customers });
  if (items.status !== 200) throw new Error(`items failed: ${items.status} ${JSON.stringify(items.body)}`);
  return { batchId, templateId, customers, session: session.body.data, items: items.body.data };
}

export const bulkStub = (batchId: string) => env.BULK_BATCH!.get(env.BULK_BATCH!.idFromName(batchId));

type BatchState = { status: string; sent_count: number; failed_count: number; running_count: number; cancelled_count: number; total_count: number; skipped_count: number };
export const batchRow = (batchId: string) => shardDbOf(batchId).prepare("SELECT * FROM bulk_batches WHERE id = ?").bind(batchId).first<BatchState>();

const TERMINAL = ["completed", "cancelled", "failed"];

/**
 * Drives the batch's Durable Object to the end: runs its alarm (as the runtime would, without waiting
 * for a scheduled retry) until the batch has settled in D1 and the object holds no run. The runtime
 * fires the same alarms on its own meanwhile; the object runs one chunk at a time either way.
 */
export async function runToEnd(batchId: string, maxRounds = 2000): Promise<BatchState> {
  const stub = bulkStub(batchId);
  for (let i = 0; i < maxRounds; i++) {
    await runDurableObjectAlarm(stub);
    const row = (await batchRow(batchId))!;
    const state = await stub.state();
    if (TERMINAL.includes(row.status) && !state.run) return row;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`batch ${batchId} did not settle after ${maxRounds} rounds`);
}

/** Envelopes per client created by a batch (exactly once: every value 1). */
export async function envelopesPerClient(batchId: string): Promise<Map<string, number>> {
  const { results } = await shardDbOf(batchId).prepare(
    "SELECT customer_id, COUNT(*) AS n FROM envelopes WHERE json_extract(metadata, '$.bulk_send.batch_id') = ? GROUP BY customer_id",
  )
    .bind(batchId)
    .all<{ customer_id: string; n: number }>();
  return new Map(results.map((r) => [r.customer_id, r.n]));
}
