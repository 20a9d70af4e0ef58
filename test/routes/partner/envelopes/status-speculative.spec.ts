import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import type { AppEnv } from "../../../../src/lib/hono";
import { partnerAuth } from "../../../../src/middleware/partner-auth";
import { requestId } from "../../../../src/middleware/request-id";
import { speculativeRead } from "../../../../src/middleware/speculative-read";
import { call, createEnvelope, newKey, newTenant, operator } from "../../../helpers/api";

const status = (key: string, id: string) => call("GET", `/partner/envelopes/${id}/status`, { key });

// The status read starts its D1 query beside the key's limiter round trip (middleware/speculative-read.ts):
// none of the access rules may depend on which of the two answers first.
describe("GET /partner/envelopes/:id/status, read beside the key's limiter", () => {
  it("answers from the row only for the caller's own organization: another's envelope is 404, like one that does not exist", async () => {
    const owner = await newTenant();
    const intruder = await newTenant();
    const e = await createEnvelope(owner.key);
    expect((await status(owner.key, e.envelope_id)).body.data).toMatchObject({ envelope_id: e.envelope_id, status: "pending" });
    const theirs = await status(intruder.key, e.envelope_id);
    const nobodys = await status(intruder.key, "env_doesnotexist");
    expect([theirs.status, nobodys.status]).toEqual([404, 404]);
    expect(theirs.body).toEqual(nobodys.body);
  });

  it("refuses a deactivated key (401) and a key without envelopes:read (403) with no envelope data", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    const unscoped = await newKey(t.orgId, ["vault:read"]);
    const noScope = await status(unscoped.key, e.envelope_id);
    expect(noScope.status).toBe(403);
    expect(JSON.stringify(noScope.body)).not.toContain(e.envelope_id);

    expect((await status(t.key, e.envelope_id)).status).toBe(200);
    expect((await operator("PATCH", `/api-keys/${t.keyId}`, { active: false })).status).toBe(200);
    const refused = await status(t.key, e.envelope_id);
    expect(refused.status).toBe(401);
    expect(JSON.stringify(refused.body)).not.toContain(e.envelope_id);
  });

  it("admits no more than rate_limit_rpm reads in the window; the refused ones carry no data", async () => {
    const t = await newTenant({ rpm: 5 });
    const e = await createEnvelope(t.key); // 1 of 5
    const answers = await Promise.all(Array.from({ length: 12 }, () => status(t.key, e.envelope_id)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(4);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(8);
    for (const a of limited) expect(a.body).not.toHaveProperty("data");
  });

  it("shows a change committed just before the read", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    expect((await call("POST", `/partner/envelopes/${e.envelope_id}/void`, { key: t.key, body: { reason: "duplicate" } })).status).toBe(200);
    expect((await status(t.key, e.envelope_id)).body.data.status).toBe("voided");
  });

  it("does not start the read for an unknown key's second attempt after a flood, nor for a key this isolate saw limited", async () => {
    let reads = 0;
    const app = new Hono<AppEnv>();
    app.use("*", requestId);
    const probeRead = speculativeRead(async () => (reads += 1));
    app.get("/probe", probeRead.middleware, partnerAuth, (c) => c.json({ read: probeRead.resultOf(c) !== undefined }));
    app.onError((err, c) => c.json({ error: String(err) }, (err as { status?: 429 }).status ?? 500));
    const t = await newTenant({ rpm: 2 });
    const probe = () => app.request("/probe", { headers: { "x-api-key": t.key } }, env);

    const first = await probe();
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ read: true });
    expect(reads).toBe(1);
    expect((await probe()).status).toBe(200);
    expect(reads).toBe(2);
    // the third is refused by the limiter, after its read started (the limiter answered after)
    expect((await probe()).status).toBe(429);
    expect(reads).toBe(3);
    // from then on, in this isolate, the key costs no read until its window resets
    for (let i = 0; i < 5; i++) expect((await probe()).status).toBe(429);
    expect(reads).toBe(3);
  });
});
