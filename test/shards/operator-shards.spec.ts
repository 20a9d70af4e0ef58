import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { boundShards, shardOf } from "../../src/lib/shards";
import { call, createEnvelope, newTenant, operator } from "../helpers/api";
import { globalDb, shardDb } from "../helpers/shards";

type Shard = { shard_id: number; state: "open" | "closed"; organizations: number; envelopes: number };

const listShards = async (): Promise<Shard[]> => {
  const res = await operator<{ data: Shard[] }>("GET", "/shards");
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

/** Where the operator's documented rule puts the next organization: fewest envelopes, then fewest organizations, then lowest number. */
const expectedPlacement = (shards: Shard[]) =>
  shards.filter((s) => s.state === "open").sort((a, b) => a.envelopes - b.envelopes || a.organizations - b.organizations || a.shard_id - b.shard_id)[0]!.shard_id;

const openShard2 = async () => {
  const res = await operator("PATCH", "/shards/2", { state: "open" });
  expect(res.status, `the test pool binds SHARD_2: ${JSON.stringify(res.body)}`).toBe(200);
};

const orgChainActions = async (orgId: string) =>
  (await globalDb.prepare("SELECT action FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(orgId).all<{ action: string }>()).results.map((r) => r.action);

describe("GET /operator/shards: the shard registry", () => {
  it("lists every bound shard with its state, organizations and envelopes; shard 1 is open", async () => {
    const shards = await listShards();
    expect(shards.map((s) => s.shard_id)).toEqual(expect.arrayContaining(boundShards(env)));
    expect(shards.map((s) => s.shard_id)).toEqual([...shards.map((s) => s.shard_id)].sort((a, b) => a - b));
    expect(shards.find((s) => s.shard_id === 1)).toMatchObject({ state: "open" });
    for (const s of shards) {
      expect(Number.isInteger(s.organizations) && s.organizations >= 0).toBe(true);
      expect(Number.isInteger(s.envelopes) && s.envelopes >= 0).toBe(true);
    }
  });

  it("counts an organization on its current shard and an envelope on the shard that stores it", async () => {
    const before = await listShards();
    const t = await newTenant();
    const org = await operator("GET", `/orgs/${t.orgId}`);
    expect(org.status).toBe(200);
    const placed: number = org.body.data.shard_id;
    const envelope = await createEnvelope(t.key);
    expect(shardOf(envelope.envelope_id)).toBe(placed);
    const after = await listShards();
    const was = before.find((s) => s.shard_id === placed)!;
    const now = after.find((s) => s.shard_id === placed)!;
    expect(now.organizations).toBeGreaterThanOrEqual(was.organizations + 1);
    expect(now.envelopes).toBeGreaterThanOrEqual(was.envelopes + 1);
    // the envelope is stored on that shard, not in the global database's copy of the table
    expect(await shardDb(placed).prepare("SELECT org_id FROM envelopes WHERE id = ?").bind(envelope.envelope_id).first("org_id")).toBe(t.orgId);
  });

  it("an operator without the token is refused, and a bad shard number or state is rejected", async () => {
    expect((await call("GET", "/operator/shards")).status).toBe(401);
    expect((await operator("PATCH", "/shards/1", { state: "half-open" })).status).toBe(422);
    expect((await operator("PATCH", "/shards/1", {})).status).toBe(422);
    expect([400, 422]).toContain((await operator("PATCH", "/shards/zero", { state: "open" })).status);
  });

  it("PATCH on a shard this deployment does not bind is 404 and registers nothing", async () => {
    const res = await operator("PATCH", "/shards/9999", { state: "open" });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(/Shard not found/);
    expect(await globalDb.prepare("SELECT COUNT(*) AS n FROM shards WHERE id = 9999").first("n")).toBe(0);
    expect((await listShards()).some((s) => s.shard_id === 9999)).toBe(false);
  });

  it("PATCH opens and closes a bound shard, registering it, and answers the shard", async () => {
    await openShard2();
    const closed = await operator("PATCH", "/shards/2", { state: "closed" });
    expect(closed.status).toBe(200);
    expect(closed.body.data).toMatchObject({ shard_id: 2, state: "closed" });
    expect((await listShards()).find((s) => s.shard_id === 2)).toMatchObject({ state: "closed" });
    const reopened = await operator("PATCH", "/shards/2", { state: "open" });
    expect(reopened.body.data).toMatchObject({ shard_id: 2, state: "open" });
    expect(await globalDb.prepare("SELECT state FROM shards WHERE id = 2").first("state")).toBe("open");
  });
});

describe("POST /operator/orgs: placement", () => {
  it("answers the shard_id it placed the organization on, and GET and the org row agree", async () => {
    const res = await operator("POST", "/orgs", { name: "Placed Lender" });
    expect(res.status).toBe(201);
    const shard: number = res.body.data.shard_id;
    expect(boundShards(env)).toContain(shard);
    expect((await operator("GET", `/orgs/${res.body.data.org_id}`)).body.data).toMatchObject({ org_id: res.body.data.org_id, shard_id: shard });
    expect(await globalDb.prepare("SELECT current_shard_id FROM organizations WHERE id = ?").bind(res.body.data.org_id).first("current_shard_id")).toBe(shard);
    const set = await globalDb.prepare("SELECT shard_id, reason FROM org_shards WHERE org_id = ?").bind(res.body.data.org_id).all();
    expect(set.results).toEqual([{ shard_id: shard, reason: "placed" }]);
    expect(await orgChainActions(res.body.data.org_id)).toEqual(["org.created"]);
  });

  it("places each new organization on the open shard with the fewest envelopes, so organizations alternate onto the emptier shard", async () => {
    await openShard2();
    const placements: number[] = [];
    for (let i = 0; i < 4; i++) {
      const shards = await listShards();
      const org = await operator("POST", "/orgs", { name: `Alternating Lender ${i}` });
      expect(org.status).toBe(201);
      expect(org.body.data.shard_id).toBe(expectedPlacement(shards));
      const landed: number = org.body.data.shard_id;
      placements.push(landed);
      // fill the shard it landed on past the other open one, so the next organization goes there
      const key = (await operator("POST", `/orgs/${org.body.data.org_id}/api-keys`, { scopes: ["envelopes:write"] })).body.data.api_key;
      const others = shards.filter((s) => s.state === "open" && s.shard_id !== landed);
      for (let n = 0; n < 40; n++) {
        const now = await listShards();
        const mine = now.find((s) => s.shard_id === landed)!.envelopes;
        if (others.every((o) => now.find((s) => s.shard_id === o.shard_id)!.envelopes < mine)) break;
        await createEnvelope(key);
      }
    }
    // the two open shards take turns: each organization lands on the one the previous did not fill
    expect(new Set(placements)).toEqual(new Set([1, 2]));
    for (let i = 1; i < placements.length; i++) expect(placements[i]).not.toBe(placements[i - 1]);
  });

  it("a closed shard takes no new organization", async () => {
    await openShard2();
    expect((await operator("PATCH", "/shards/2", { state: "closed" })).status).toBe(200);
    try {
      for (let i = 0; i < 3; i++) expect((await operator("POST", "/orgs", { name: `Not on two ${i}` })).body.data.shard_id).not.toBe(2);
    } finally {
      await openShard2();
    }
  });

  it("shard_id places the organization on that open shard, and only there; a closed or unbound one is 422", async () => {
    await openShard2();
    for (const shard of [2, 1, 2]) {
      const created = await operator("POST", "/orgs", { name: `Placed on ${shard}`, shard_id: shard });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.data.shard_id).toBe(shard);
      const set = await globalDb.prepare("SELECT shard_id FROM org_shards WHERE org_id = ?").bind(created.body.data.org_id).all<{ shard_id: number }>();
      expect(set.results.map((r) => r.shard_id)).toEqual([shard]);
    }
    const unbound = await operator("POST", "/orgs", { name: "Nowhere", shard_id: 7 });
    expect(unbound.status).toBe(422);
    expect(unbound.body.details[0].path).toEqual(["shard_id"]);
    expect((await operator("PATCH", "/shards/2", { state: "closed" })).status).toBe(200);
    try {
      expect((await operator("POST", "/orgs", { name: "On a closed shard", shard_id: 2 })).status).toBe(422);
    } finally {
      await openShard2();
    }
  });
});

describe("PATCH /operator/orgs/:org_id {current_shard_id}: moving an organization", () => {
  it("an unknown organization is 404", async () => {
    const res = await operator("PATCH", "/orgs/org_00000000000000000000000000", { current_shard_id: 1 });
    expect(res.status).toBe(404);
  });

  it("a shard this deployment does not bind is 422 at current_shard_id, and the organization stays", async () => {
    const t = await newTenant();
    const before = (await operator("GET", `/orgs/${t.orgId}`)).body.data.shard_id;
    const res = await operator("PATCH", `/orgs/${t.orgId}`, { current_shard_id: 9999 });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.details)).toContain("current_shard_id");
    expect((await operator("GET", `/orgs/${t.orgId}`)).body.data.shard_id).toBe(before);
    expect(await orgChainActions(t.orgId)).not.toContain("org.shard_moved");
  });

  it("a closed shard is 422, and the organization stays", async () => {
    await openShard2();
    const t = await newTenant();
    const from: number = (await operator("GET", `/orgs/${t.orgId}`)).body.data.shard_id;
    const to = from === 1 ? 2 : 1;
    expect((await operator("PATCH", `/shards/${to}`, { state: "closed" })).status).toBe(200);
    try {
      const res = await operator("PATCH", `/orgs/${t.orgId}`, { current_shard_id: to });
      expect(res.status).toBe(422);
      expect((await operator("GET", `/orgs/${t.orgId}`)).body.data.shard_id).toBe(from);
    } finally {
      await operator("PATCH", `/shards/${to}`, { state: "open" });
    }
  });

  it("moving to the shard it is on changes nothing and records nothing", async () => {
    const t = await newTenant();
    const on: number = (await operator("GET", `/orgs/${t.orgId}`)).body.data.shard_id;
    const res = await operator("PATCH", `/orgs/${t.orgId}`, { current_shard_id: on });
    expect(res.status).toBe(200);
    expect(res.body.data.shard_id).toBe(on);
    expect(await orgChainActions(t.orgId)).toEqual(["org.created", "api_key.created"]);
  });

  it("a partner key's creates follow the move at once; the old envelopes stay readable where they are", async () => {
    await openShard2();
    const t = await newTenant();
    const from: number = (await operator("GET", `/orgs/${t.orgId}`)).body.data.shard_id;
    const to = from === 1 ? 2 : 1;
    const old = await createEnvelope(t.key);
    expect(shardOf(old.envelope_id)).toBe(from);

    const moved = await operator("PATCH", `/orgs/${t.orgId}`, { current_shard_id: to });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.data.shard_id).toBe(to);
    expect(await orgChainActions(t.orgId)).toEqual(["org.created", "api_key.created", "org.shard_moved"]);
    const set = await globalDb.prepare("SELECT shard_id FROM org_shards WHERE org_id = ? ORDER BY shard_id").bind(t.orgId).all<{ shard_id: number }>();
    expect(set.results.map((r) => r.shard_id)).toEqual([1, 2]);

    // the same key, right after the move: its limiter got the new shard pushed
    const fresh = await createEnvelope(t.key);
    expect(shardOf(fresh.envelope_id)).toBe(to);
    expect(await shardDb(to).prepare("SELECT org_id FROM envelopes WHERE id = ?").bind(fresh.envelope_id).first("org_id")).toBe(t.orgId);
    expect(await shardDb(from).prepare("SELECT COUNT(*) AS n FROM envelopes WHERE id = ?").bind(fresh.envelope_id).first("n")).toBe(0);
    // both envelopes are still the partner's
    expect((await call("GET", `/partner/envelopes/${old.envelope_id}`, { key: t.key })).status).toBe(200);
    expect((await call("GET", `/partner/envelopes/${fresh.envelope_id}`, { key: t.key })).status).toBe(200);
  });

  it("a key created after the move, and a console member, create on the new shard too", async () => {
    await openShard2();
    const t = await newTenant();
    const from: number = (await operator("GET", `/orgs/${t.orgId}`)).body.data.shard_id;
    const to = from === 1 ? 2 : 1;
    expect((await operator("PATCH", `/orgs/${t.orgId}`, { current_shard_id: to })).status).toBe(200);
    const key = await operator("POST", `/orgs/${t.orgId}/api-keys`, { scopes: ["envelopes:write"] });
    expect(shardOf((await createEnvelope(key.body.data.api_key)).envelope_id)).toBe(to);
  });
});

describe("GET /operator/orgs: every organization with its shard", () => {
  it("pages through organizations in creation order with next_after", async () => {
    const a = await newTenant({ name: "List A" });
    const b = await newTenant({ name: "List B" });
    const seen: { org_id: string; shard_id: number }[] = [];
    for (let after: string | null = null, pages = 0; pages < 1000; pages++) {
      const res: { status: number; body: any } = await operator("GET", `/orgs?limit=2${after ? `&after=${after}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data);
      after = res.body.meta.next_after;
      if (!after) break;
    }
    const ids = seen.map((o) => o.org_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.indexOf(a.orgId)).toBeLessThan(ids.indexOf(b.orgId));
    expect(ids.indexOf(a.orgId)).toBeGreaterThanOrEqual(0);
    expect(seen.find((o) => o.org_id === b.orgId)!.shard_id).toBe((await operator("GET", `/orgs/${b.orgId}`)).body.data.shard_id);
  });
});
