import { createExecutionContext, createMessageBatch, createScheduledController, env, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { Env, OutboxMessage } from "../../src/env";
import { faultStats } from "../../src/lib/faults";
import { BASE, envelopeBody, newTenant } from "../helpers/api";
import { sentTwoSignerEnvelope } from "../helpers/signing-flow";
import { orgShardDb, shardDbOf } from "../helpers/shards";
import { makePdf, sha256Hex } from "../helpers/pdf";
import { paperEnvelope } from "../helpers/vault";
import { envelopeVaultPrefix } from "../../src/services/vault/keys";
import { adminToken, attemptsOf, createEndpoint, deliveriesOf, insertEvent, received, receiverUrl, recordingQueue } from "../helpers/webhooks";
import { fanOutEvent } from "../../src/services/webhooks/fan-out";
import { CLAIM_LEASE_MS } from "../../src/services/webhooks/deliver";
import { sweepDeliveries } from "../../src/jobs/sweep-deliveries";
import { jobContextOf } from "../helpers/context";

/**
 * The fault layer (src/lib/faults.ts): the Worker's own entry points (src/index.ts) run with FAULTS set,
 * against the real bindings, and each test shows what a caller or an operator sees when a binding fails.
 */
const withFaults = (faults: string, overrides: Partial<Env> = {}): Env => ({ ...env, FAULTS: faults, FAULT_TIMEOUT_MS: "20", ...overrides });

async function request(bindings: Env, method: string, path: string, opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers["X-API-Key"] = opts.key;
  if (opts.body !== undefined) headers["Content-Type"] = "application/json";
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(path.startsWith("http") ? path : BASE + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }), bindings, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body };
}

/** What the organization holds: its envelopes, customers and outbox events (a half-written create shows here). */
async function holdings(orgId: string) {
  const db = await orgShardDb(orgId);
  const count = async (table: string) => (await db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE org_id = ?`).bind(orgId).first<{ n: number }>())!.n;
  return { envelopes: await count("envelopes"), customers: await count("customers"), events: await count("events") };
}

function expectErrorShape(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(typeof res.body.error).toBe("string");
  expect(res.body.code).toBe(code);
  expect(res.headers.get("x-request-id")).toMatch(/^req_/);
}

describe("FAULTS: development only", () => {
  it("in production every request answers 503 naming FAULTS (health included), and nothing is written", async () => {
    const t = await newTenant();
    const before = await holdings(t.orgId);
    const prod = withFaults("d1.error=0.5", { SERVICE_ENV: "production" });
    const created = await request(prod, "POST", "/partner/envelopes", { key: t.key, body: envelopeBody() });
    expectErrorShape(created, 503, "service_unavailable");
    expect(created.body.error).toContain("FAULTS");
    expect(created.body.details).toEqual({ variable: "FAULTS", value: "d1.error=0.5" });
    expectErrorShape(await request(prod, "GET", "http://localhost/health"), 503, "service_unavailable");
    expect(await holdings(t.orgId)).toEqual(before);
  });

  it("an unreadable FAULTS in development is refused naming the entry, not run fault-free", async () => {
    const res = await request(withFaults("d1.eror=0.5"), "GET", "http://localhost/health");
    expectErrorShape(res, 503, "service_unavailable");
    expect(res.body.error).toContain('"d1.eror=0.5"');
  });
});

describe("faults at the request surface", () => {
  it("a D1 write that fails answers 503 temporarily_unavailable with Retry-After and X-Request-Id; nothing is half-written, and the retry creates one envelope", async () => {
    const t = await newTenant();
    const before = await holdings(t.orgId);
    const body = envelopeBody();
    const key = `retry-${crypto.randomUUID()}`;
    for (const kind of ["error", "reset"]) {
      const failed = await request(withFaults(`d1.write.${kind}=1`), "POST", "/partner/envelopes", { key: t.key, body, headers: { "Idempotency-Key": key } });
      expectErrorShape(failed, 503, "temporarily_unavailable");
      expect(failed.headers.get("retry-after")).toBe("1");
      expect(failed.body.details.request_id).toBe(failed.headers.get("x-request-id"));
      expect(await holdings(t.orgId)).toEqual(before);
    }
    const retried = await request(env as Env, "POST", "/partner/envelopes", { key: t.key, body, headers: { "Idempotency-Key": key } });
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    const after = await holdings(t.orgId);
    expect(after.envelopes).toBe(before.envelopes + 1);
  });

  it("a keyed create whose commit lands but whose answer times out (503): the retry with the same key answers that envelope, and no second one is created or billed", async () => {
    const t = await newTenant();
    const before = await holdings(t.orgId);
    const body = envelopeBody();
    const key = `ambiguous-${crypto.randomUUID()}`;
    // the create's commit (its one batch) runs, then throws a timeout: the caller cannot tell it landed
    const lost = await request(withFaults("d1.batch.timeout=1/1"), "POST", "/partner/envelopes", { key: t.key, body, headers: { "Idempotency-Key": key } });
    expectErrorShape(lost, 503, "temporarily_unavailable");
    expect((await holdings(t.orgId)).envelopes, "the commit ran under the timeout").toBe(before.envelopes + 1);

    const retried = await request(env as Env, "POST", "/partner/envelopes", { key: t.key, body, headers: { "Idempotency-Key": key } });
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.body.data).toMatchObject({ envelope_name: body.envelope_name, status: "pending" });
    const after = await holdings(t.orgId);
    expect(after).toEqual({ envelopes: before.envelopes + 1, customers: before.customers + 1, events: before.events + 1 });
    const db = await orgShardDb(t.orgId);
    const usage = await db.prepare("SELECT COUNT(*) AS n FROM usage_lines WHERE org_id = ? AND envelope_id = ?").bind(t.orgId, retried.body.data.envelope_id).first<number>("n");
    expect(usage, "billed once").toBe(1);
    // from now on the stored answer is replayed
    const replayed = await request(env as Env, "POST", "/partner/envelopes", { key: t.key, body, headers: { "Idempotency-Key": key } });
    expect([replayed.status, replayed.headers.get("idempotent-replayed"), replayed.body.data.envelope_id]).toEqual([201, "true", retried.body.data.envelope_id]);
    // the same key with another body is another request: it creates
    const other = await request(env as Env, "POST", "/partner/envelopes", { key: t.key, body: envelopeBody(), headers: { "Idempotency-Key": `${key}-2` } });
    expect(other.status).toBe(201);
    expect((await holdings(t.orgId)).envelopes).toBe(before.envelopes + 2);
  });

  it("a D1 read that times out answers 503 in the error shape, never a 500", async () => {
    const t = await newTenant();
    const res = await request(withFaults("d1.timeout=1"), "GET", "/partner/envelopes", { key: t.key });
    expectErrorShape(res, 503, "temporarily_unavailable");
  });

  it("a failing Durable Object (the key's rate limiter) answers 503 in the error shape, and the same read succeeds without the fault", async () => {
    const t = await newTenant();
    const res = await request(withFaults("do.error=1"), "GET", "/partner/envelopes", { key: t.key });
    expectErrorShape(res, 503, "temporarily_unavailable");
    expect((await request(env as Env, "GET", "/partner/envelopes", { key: t.key })).status).toBe(200);
  });

  it("an R2 write that fails or times out during a vault-in upload answers 503, never hangs; nothing is half-written, and the retry vaults one complete record", async () => {
    const t = await newTenant();
    const envelope = await paperEnvelope(t.key);
    const pdf = await makePdf({ pages: 2, text: `Paper contract ${envelope.envelope_id}` });
    const upload = async (bindings: Env) => {
      const form = new FormData();
      form.append("file", new File([pdf], "signed.pdf", { type: "application/pdf" }));
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request(`${BASE}/partner/envelopes/${envelope.envelope_id}/vault-in-upload`, { method: "POST", headers: { "X-API-Key": t.key }, body: form }), bindings, ctx);
      await waitOnExecutionContext(ctx);
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: JSON.parse(text) };
    };
    const db = shardDbOf(envelope.envelope_id);
    const prefix = envelopeVaultPrefix(t.orgId, envelope.envelope_id);
    // error and reset: the put throws before reading the streamed body (the soak's hang); timeout: it stored, then threw
    for (const kind of ["error", "reset", "timeout"]) {
      const failed = await upload(withFaults(`r2.write.${kind}=1/1`));
      expectErrorShape(failed, 503, "temporarily_unavailable");
      const row = await db.prepare("SELECT status FROM envelopes WHERE id = ?").bind(envelope.envelope_id).first<{ status: string }>();
      expect(row!.status).not.toBe("vaulted");
      expect(await db.prepare("SELECT COUNT(*) AS n FROM vault_records WHERE envelope_id = ?").bind(envelope.envelope_id).first("n")).toBe(0);
      expect((await env.DOCS.list({ prefix })).objects.map((o) => o.key)).toEqual([]);
    }
    const vaulted = await upload(env as Env);
    expect(vaulted.status, JSON.stringify(vaulted.body)).toBe(200);
    expect(vaulted.body.data.status).toBe("vaulted");
    const record = await db.prepare("SELECT authoritative_key, document_hash FROM vault_records WHERE envelope_id = ?").bind(envelope.envelope_id).first<{ authoritative_key: string; document_hash: string }>();
    expect(record!.document_hash).toBe(await sha256Hex(pdf));
    const stored = await env.DOCS.get(record!.authoritative_key);
    expect(await sha256Hex(new Uint8Array(await stored!.arrayBuffer()))).toBe(record!.document_hash);
  });

  it("a vault-in whose D1 commit times out after landing keeps the objects its record points at: the record is complete, never half-written", async () => {
    const t = await newTenant();
    const envelope = await paperEnvelope(t.key);
    const pdf = await makePdf({ pages: 2, text: `Paper contract ${envelope.envelope_id}` });
    const form = new FormData();
    form.append("file", new File([pdf], "signed.pdf", { type: "application/pdf" }));
    const ctx = createExecutionContext();
    // every D1 write runs, then throws a timeout: the commit lands, and its answer says it failed
    const res = await worker.fetch(new Request(`${BASE}/partner/envelopes/${envelope.envelope_id}/vault-in-upload`, { method: "POST", headers: { "X-API-Key": t.key }, body: form }), withFaults("d1.write.timeout=1"), ctx);
    await waitOnExecutionContext(ctx);
    expect([200, 503]).toContain(res.status);
    const db = shardDbOf(envelope.envelope_id);
    const record = await db.prepare("SELECT authoritative_key, copy_key, document_hash FROM vault_records WHERE envelope_id = ?").bind(envelope.envelope_id).first<{ authoritative_key: string; copy_key: string; document_hash: string }>();
    expect(record, "the commit ran under the timeout, so the record exists").not.toBeNull();
    const stored = await env.DOCS.get(record!.authoritative_key);
    expect(stored, "the authoritative object of a committed record").not.toBeNull();
    expect(await sha256Hex(new Uint8Array(await stored!.arrayBuffer()))).toBe(record!.document_hash);
    expect(await env.DOCS.head(record!.copy_key)).not.toBeNull();
  });

  it("with every binding wrapped and no fault rolled, the service answers as without the layer (a create through the key's Durable Object, a status read)", async () => {
    const t = await newTenant();
    const wrapped = withFaults("d1.error=0,r2.error=0,do.error=0,queue.error=0,fetch.error=0");
    const created = await request(wrapped, "POST", "/partner/envelopes", { key: t.key, body: envelopeBody() });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const read = await request(wrapped, "GET", `/partner/envelopes/${created.body.data.envelope_id}/status`, { key: t.key });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
  });

  it("counts what it injected, by binding and kind, for the soak's table", async () => {
    const before = faultStats().injected["d1.reset"] ?? 0;
    const t = await newTenant();
    await request(withFaults("d1.reset=1/1"), "GET", "/partner/envelopes", { key: t.key });
    expect(faultStats().injected["d1.reset"]).toBe(before + 1);
  });
});

describe("faults in the queue consumer", () => {
  const eventBatch = (bodies: OutboxMessage[]) =>
    createMessageBatch<OutboxMessage>("esign-vault-webhooks", bodies.map((body, i) => ({ id: `dup${i}-${crypto.randomUUID()}`, timestamp: new Date(), attempts: 1, body })));

  async function consume(bindings: Env, bodies: OutboxMessage[]) {
    const ctx = createExecutionContext();
    const batch = eventBatch(bodies);
    await worker.queue(batch, bindings, ctx);
    await waitOnExecutionContext(ctx);
    return getQueueResult(batch, ctx);
  }

  it("every message delivered twice (the event, then each delivery): the receiver gets one request per event id and one delivery row", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const target = receiverUrl("ok");
    const endpoint = await createEndpoint(token, { url: target.url, events: ["*"] });
    const events = [await insertEvent(t.orgId), await insertEvent(t.orgId)];
    const { queue, sent } = recordingQueue();
    const faulty = withFaults("queue.duplicate=1", { WEBHOOK_QUEUE: queue });
    // the event message arrives twice, and every delivery message the consumer sends is sent twice
    let pending: OutboxMessage[] = events.flatMap((id) => [{ kind: "event" as const, event_id: id }, { kind: "event" as const, event_id: id }]);
    while (pending.length > 0) {
      const from = sent.length;
      await consume(faulty, pending);
      pending = sent.slice(from);
    }
    const deliveries = await deliveriesOf(endpoint.endpoint_id);
    expect(deliveries.map((d) => d.event_id).sort()).toEqual([...events].sort());
    const got = await received(target.path);
    const ids = got.map((r) => r.headers["webhook-id"] ?? JSON.parse(r.body).id);
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids).size).toBe(events.length);
  });

  /** Two endpoints of one organization and three events fanned out to both: six delivery ids, due, unclaimed. */
  async function dueDeliveries() {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const targets = [receiverUrl("ok"), receiverUrl("ok")];
    const endpoints = [];
    for (const target of targets) endpoints.push(await createEndpoint(token, { url: target.url, events: ["*"] }));
    const events = [await insertEvent(t.orgId), await insertEvent(t.orgId), await insertEvent(t.orgId)];
    const ids: string[] = [];
    for (const eventId of events) ids.push(...(await fanOutEvent(jobContextOf(eventId), { eventId })));
    expect(ids).toHaveLength(6);
    return { targets, endpoints, events, ids };
  }

  it("a batch of delivery messages whose claim fails is retried whole with nothing sent; the retry sends each delivery once, a duplicate message included", async () => {
    const { targets, endpoints, events, ids } = await dueDeliveries();
    const bodies: OutboxMessage[] = [...ids, ids[0]!].map((delivery_id) => ({ kind: "delivery" as const, delivery_id }));
    const { queue, sent } = recordingQueue();
    // the batch's first commit is the claim of all six: it fails before doing anything
    const failed = await consume(withFaults("d1.batch.error=1/1", { WEBHOOK_QUEUE: queue }), bodies);
    expect(failed.explicitAcks).toEqual([]);
    expect(failed.retryMessages).toHaveLength(bodies.length);
    for (const target of targets) expect(await received(target.path)).toEqual([]);

    const retried = await consume({ ...(env as Env), WEBHOOK_QUEUE: queue }, bodies);
    expect(retried.explicitAcks).toHaveLength(bodies.length);
    expect(retried.retryMessages).toEqual([]);
    for (const target of targets) expect((await received(target.path)).map((r) => JSON.parse(r.body).event_id).sort()).toEqual([...events].sort());
    for (const endpoint of endpoints) {
      for (const d of await deliveriesOf(endpoint.endpoint_id)) {
        expect(d).toMatchObject({ status: "succeeded", attempts: 1, response_status: 200 });
        expect(await attemptsOf(d.id)).toHaveLength(1);
      }
    }
    expect(sent).toEqual([]);
  });

  it("a batch of delivery messages whose claim lands but times out: nothing is sent, the retried messages send nothing, the sweep sends each once after the claim", async () => {
    const { targets, endpoints, ids } = await dueDeliveries();
    const bodies: OutboxMessage[] = ids.map((delivery_id) => ({ kind: "delivery" as const, delivery_id }));
    const { queue } = recordingQueue();
    // the claim of all six commits, then throws a timeout: the consumer cannot know it holds them
    const first = await consume(withFaults("d1.batch.timeout=1/1", { WEBHOOK_QUEUE: queue }), bodies);
    expect(first.retryMessages).toHaveLength(bodies.length);
    // the redelivered messages find every delivery under that claim: nothing is sent, each acked
    const again = await consume({ ...(env as Env), WEBHOOK_QUEUE: queue }, bodies);
    expect(again.explicitAcks).toHaveLength(bodies.length);
    for (const target of targets) expect(await received(target.path)).toEqual([]);
    // once the claim has lapsed, the sweep sends each delivery, once
    await sweepDeliveries(jobContextOf(ids[0]!), new Date(Date.now() + CLAIM_LEASE_MS + 1_000));
    for (const target of targets) expect(await received(target.path)).toHaveLength(3);
    for (const endpoint of endpoints) for (const d of await deliveriesOf(endpoint.endpoint_id)) expect(d).toMatchObject({ status: "succeeded", attempts: 1 });
  });

  it("an outbound fetch that resets records a failed attempt and a retry, never a lost delivery; without the fault it arrives once", async () => {
    const t = await newTenant();
    const token = await adminToken(t.orgId);
    const target = receiverUrl("ok");
    const endpoint = await createEndpoint(token, { url: target.url, events: ["*"] });
    const event = await insertEvent(t.orgId);
    const { queue, sent } = recordingQueue();
    await consume(withFaults("fetch.reset=1", { WEBHOOK_QUEUE: queue }), [{ kind: "event", event_id: event }]);
    for (let i = 0; i < 3 && sent.length > 0; i++) await consume(withFaults("fetch.reset=1", { WEBHOOK_QUEUE: queue }), sent.splice(0));
    const delivery = (await deliveriesOf(endpoint.endpoint_id))[0]!;
    expect(delivery.event_id).toBe(event);
    expect(delivery.status).toBe("pending");
    expect(await received(target.path)).toHaveLength(0);
    // the fault gone, the minute cron's sweep (an hour on, past the backoff) delivers it, once
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now() + 3600_000, cron: "* * * * *" }), { ...(env as Env), WEBHOOK_QUEUE: queue }, ctx);
    await waitOnExecutionContext(ctx);
    const after = (await deliveriesOf(endpoint.endpoint_id))[0]!;
    expect(after.status).toBe("succeeded");
    expect(await received(target.path)).toHaveLength(1);
  });
});

describe("the soak's development routes", () => {
  const dev = (overrides: Partial<Env> = {}) => ({ ...(env as Env), DEV_PAGES: "true", ...overrides });

  it("POST /dev/jobs/:job runs one minute job at a later clock: an envelope past its expiry is expired, and nothing else ran; unknown job 400; without DEV_PAGES 404", async () => {
    const t = await newTenant();
    const { envelopeId } = await sentTwoSignerEnvelope(t.key);
    const before = await request(env as Env, "GET", `/partner/envelopes/${envelopeId}`, { key: t.key });
    expect(before.body.data.status).toBe("sent");
    const at = new Date(Date.parse(before.body.data.expires_at) + 60_000).toISOString();
    const ran = await request(dev(), "POST", "http://localhost/dev/jobs/expire-envelopes", { body: { at } });
    expect(ran.status, JSON.stringify(ran.body)).toBe(200);
    expect(ran.body.data).toMatchObject({ job: "expire-envelopes", at, failed: [] });
    expect(ran.body.data.shards.length).toBeGreaterThan(0);
    const status = await request(env as Env, "GET", `/partner/envelopes/${envelopeId}/status`, { key: t.key });
    expect(status.body.data.status).toBe("expired");

    expectErrorShape(await request(dev(), "POST", "http://localhost/dev/jobs/format-disk", { body: { at } }), 400, "bad_request");
    expectErrorShape(await request(dev(), "POST", "http://localhost/dev/jobs/expire-envelopes", { body: {} }), 422, "validation_failed");
    expect((await request(env as Env, "POST", "http://localhost/dev/jobs/expire-envelopes", { body: { at } })).status).toBe(404);
  });

  it("POST /dev/faults pauses the layer: a request under d1.error=1 succeeds while paused and fails again once resumed", async () => {
    const t = await newTenant();
    const faulty = dev({ FAULTS: "d1.error=1" });
    // the dev route itself runs under the plan; the pause is set before any binding is touched
    const paused = await request(faulty, "POST", "http://localhost/dev/faults", { body: { paused: true } });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(paused.body.data).toMatchObject({ faults: "d1.error=1", paused: true });
    try {
      expect((await request(faulty, "GET", "/partner/envelopes", { key: t.key })).status).toBe(200);
    } finally {
      await request(faulty, "POST", "http://localhost/dev/faults", { body: { paused: false } });
    }
    expectErrorShape(await request(faulty, "GET", "/partner/envelopes", { key: t.key }), 503, "temporarily_unavailable");
    const stats = await request(dev(), "GET", "http://localhost/dev/faults");
    expect(stats.body.data.paused).toBe(false);
    expect(stats.body.data.injected["d1.error"]).toBeGreaterThan(0);
  });

  it("GET /dev/invariants verifies every chain and names an edited audit entry; in production it is refused", async () => {
    const t = await newTenant();
    const res = await request(env as Env, "POST", "/partner/envelopes", { key: t.key, body: envelopeBody() });
    const envelopeId: string = res.body.data.envelope_id;
    const first = await request(dev(), "GET", "http://localhost/dev/invariants");
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.checked.chains_verify).toBeGreaterThan(0);
    expect(JSON.stringify(first.body.data.broken)).not.toContain(envelopeId);
    const db = await orgShardDb(t.orgId);
    await db.prepare("UPDATE audit_log SET data = '{\"edited\":true}' WHERE chain_id = ? AND seq = 1").bind(envelopeId).run();
    const second = await request(dev(), "GET", "http://localhost/dev/invariants");
    expect(second.body.data.broken_total).toBeGreaterThan(0);
    expect(second.body.data.broken.chains_verify.join("\n")).toContain(envelopeId);
    const refused = await request(dev({ SERVICE_ENV: "production" }), "GET", "http://localhost/dev/invariants");
    expectErrorShape(refused, 503, "service_unavailable");
    expect(refused.body.error).toContain("DEV_PAGES");
  });

  it("GET /dev/invariants names an envelope whose usage line is missing or doubled, and an email whose retry was never taken", async () => {
    const t = await newTenant();
    const res = await request(env as Env, "POST", "/partner/envelopes", { key: t.key, body: envelopeBody() });
    const envelopeId: string = res.body.data.envelope_id;
    const db = await orgShardDb(t.orgId);
    const first = await request(dev(), "GET", "http://localhost/dev/invariants");
    expect(first.body.data.checked.usage_matches_records).toBeGreaterThan(0);
    expect(JSON.stringify(first.body.data.broken)).not.toContain(envelopeId);

    await db.prepare("DELETE FROM usage_lines WHERE envelope_id = ? AND kind = 'esign_envelope'").bind(envelopeId).run();
    const unbilled = await request(dev(), "GET", "http://localhost/dev/invariants");
    expect(unbilled.body.data.broken.usage_matches_records.join("\n")).toContain(`envelope ${envelopeId}: 0 esign_envelope lines`);

    // an email that failed once and whose retry came due a while ago: due, never sent
    const emailId = `eml_soak_${envelopeId}`;
    await db
      .prepare(
        `INSERT INTO email_outbox (id, org_id, envelope_id, kind, to_email, to_name, subject, text, html, status, created_at, attempts, next_attempt_at, error)
         VALUES (?, ?, ?, 'completed_copy', 'c@example.com', 'C', 's', 't', 'h', 'failed', ?, 1, ?, 'Postmark answered HTTP 503')`,
      )
      .bind(emailId, t.orgId, envelopeId, new Date(Date.now() - 3_600_000).toISOString(), new Date(Date.now() - 1_800_000).toISOString())
      .run();
    const unsent = await request(dev(), "GET", "http://localhost/dev/invariants");
    expect(unsent.body.data.broken.emails_due_sent.join("\n")).toContain(emailId);
  });
});
