import { beforeAll, describe, expect, it } from "vitest";
import { shardOf } from "../../src/lib/shards";
import { call, newTenant, operator } from "../helpers/api";
import { CONTROL_SCOPES, offered, vaulted, type Party } from "../helpers/control";
import { globalDb, shardDb } from "../helpers/shards";
import { adminToken, createEndpoint, receiverUrl, waitForRequests } from "../helpers/webhooks";

// Control transfers across shards (docs/decisions/shards.md 4). The record, its chain, the transfer
// and the events to both parties live on the record's shard (its envelope's); the transferee learns of
// the shard through its shard set (`org_shards`, global), written first. These tests place one party
// on shard 1 and the other on shard 2: they need the pool to bind SHARD_2.

const partyOn = (shard: number, name: string): Promise<Party> => newTenant({ scopes: CONTROL_SCOPES, name, shard });

const book = async (p: Party, role = "controller") => {
  const res = await call("GET", `/partner/vault?role=${role}`, { key: p.key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { data: Record<string, any>[]; total?: number; [k: string]: unknown };
};
const incoming = async (p: Party) => {
  const res = await call("GET", "/partner/vault/transfers?direction=incoming", { key: p.key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Record<string, any>[];
};
const shardSetOf = async (orgId: string) =>
  (await globalDb.prepare("SELECT shard_id, reason FROM org_shards WHERE org_id = ? ORDER BY shard_id").bind(orgId).all<{ shard_id: number; reason: string }>()).results;

// shard 2 open for placement (best effort: an unbound shard 2 answers 404 and the tests that need it fail)
beforeAll(async () => {
  await operator("PATCH", "/shards/2", { state: "open" });
});

describe("vault ids name the record's shard", () => {
  it("a record vaulted on shard 2 has its vault, certificate and integrity-check ids tagged 2, its rows on shard 2", async () => {
    const b = await partyOn(2, "Shard two lender");
    const { e, vaultId } = await vaulted(b);
    expect(shardOf(e.envelope_id)).toBe(2);
    expect(vaultId).toMatch(/^vlt_2_[0-9a-z]{26}$/);
    const cert = await shardDb(2).prepare("SELECT id FROM vault_certificates WHERE vault_id = ?").bind(vaultId).first<string>("id");
    expect(cert).toMatch(/^cert_2_/);
    const check = await shardDb(2).prepare("SELECT id FROM vault_integrity_checks WHERE vault_id = ?").bind(vaultId).first<string>("id");
    expect(check).toMatch(/^ichk_2_/);
    // the record reads by its id (routed to shard 2), and the certificate names the controller by name
    const got = await call("GET", `/partner/vault/${vaultId}`, { key: b.key });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.data.controller).toEqual({ org_id: b.orgId, name: "Shard two lender" });
  });
});

describe("a transfer between an organization on shard 1 and one on shard 2", () => {
  it("offer, accept: the record's shard joins the transferee's set, its book and incoming list show it, its webhook fires", async () => {
    const [a, b] = await Promise.all([partyOn(1, "Dealer on one"), partyOn(2, "Bank on two")]);
    const hook = receiverUrl("ok");
    await createEndpoint(await adminToken(b.orgId), { url: hook.url, events: ["vault.transfer_requested", "vault.control_transferred"] });
    const { e, vaultId } = await vaulted(a);
    expect(shardOf(vaultId)).toBe(1);

    const t = await offered(a, vaultId, b);
    expect(shardOf(t.transfer_id)).toBe(1);
    // global first: shard 1 is in the transferee's set (reason vault); the transfer row is on shard 1
    expect(await shardSetOf(b.orgId)).toEqual(expect.arrayContaining([{ shard_id: 1, reason: "vault" }]));
    expect(await shardDb(1).prepare("SELECT status FROM vault_transfers WHERE id = ?").bind(t.transfer_id).first<string>("status")).toBe("pending");
    expect((await incoming(b)).map((x) => x.transfer_id)).toContain(t.transfer_id);

    const accepted = await call("POST", `/partner/vault/transfers/${t.transfer_id}/accept`, { key: b.key });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(await shardDb(1).prepare("SELECT controller_org_id FROM vault_records WHERE id = ?").bind(vaultId).first<string>("controller_org_id")).toBe(b.orgId);

    // the transferee's book (its own shard 2 plus shard 1) lists the record, named from global
    const bBook = await book(b);
    const item = bBook.data.find((r) => r.vault_id === vaultId);
    expect(item, JSON.stringify(bBook)).toBeDefined();
    expect(item!.controller).toEqual({ org_id: b.orgId, name: "Bank on two" });
    expect(item!.originator).toEqual({ org_id: a.orgId, name: "Dealer on one" });
    // the transferor no longer controls it; it still originated it
    expect((await book(a)).data.map((r) => r.vault_id)).not.toContain(vaultId);
    expect((await book(a, "originator")).data.map((r) => r.vault_id)).toContain(vaultId);
    // the transferee reads and acts on the record by its vlt_ id
    expect((await call("GET", `/partner/vault/${vaultId}`, { key: b.key })).status).toBe(200);

    // its webhooks fire: the events are rows on the record's shard, delivered to b's (global) endpoint
    const requests = await waitForRequests(hook.path, 2);
    const types = requests.map((r) => JSON.parse(r.body).event_type as string);
    expect(types).toEqual(expect.arrayContaining(["vault.transfer_requested", "vault.control_transferred"]));
    // one event row per party, both on the record's shard
    const events = await shardDb(1)
      .prepare("SELECT org_id FROM events WHERE envelope_id = ? AND type = 'vault.control_transferred' ORDER BY org_id")
      .bind(e.envelope_id)
      .all<{ org_id: string }>();
    expect(events.results.map((r) => r.org_id).sort()).toEqual([a.orgId, b.orgId].sort());
  });

  it("a record on shard 2 offered to an organization on shard 1, rejected: both keep listing the settled transfer", async () => {
    const [a, b] = await Promise.all([partyOn(2, "Dealer on two"), partyOn(1, "Bank on one")]);
    const { vaultId } = await vaulted(a);
    expect(shardOf(vaultId)).toBe(2);
    const t = await offered(a, vaultId, b, "pledge");
    expect(shardOf(t.transfer_id)).toBe(2);
    const rejected = await call("POST", `/partner/vault/transfers/${t.transfer_id}/reject`, { key: b.key });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    const res = await call("GET", "/partner/vault/transfers?direction=incoming&status=rejected", { key: b.key });
    expect(res.status).toBe(200);
    expect(res.body.data.map((x: Record<string, any>) => x.transfer_id)).toContain(t.transfer_id);
    const out = await call("GET", "/partner/vault/transfers?direction=outgoing", { key: a.key });
    expect(out.body.data.map((x: Record<string, any>) => x.transfer_id)).toContain(t.transfer_id);
    expect(await shardDb(2).prepare("SELECT controller_org_id FROM vault_records WHERE id = ?").bind(vaultId).first<string>("controller_org_id")).toBe(a.orgId);
  });

  it("a crash between the global and the shard write of an offer: the book still answers, and a retried offer works", async () => {
    const [a, c] = await Promise.all([partyOn(2, "Dealer on two"), partyOn(1, "Warehouse on one")]);
    const { vaultId } = await vaulted(a);
    // as if the offer died after its global write: only the org_shards row exists, no transfer
    await globalDb.prepare("INSERT OR IGNORE INTO org_shards (org_id, shard_id, reason, first_at) VALUES (?, ?, 'vault', ?)").bind(c.orgId, 2, new Date().toISOString()).run();
    expect(await shardDb(2).prepare("SELECT COUNT(*) AS n FROM vault_transfers WHERE vault_id = ?").bind(vaultId).first<number>("n")).toBe(0);

    // the extra shard is an empty query: the book and the incoming list answer, without the record
    const before = await book(c);
    expect(before.data.map((r) => r.vault_id)).not.toContain(vaultId);
    expect(await incoming(c)).toEqual([]);

    // the retried offer writes the same set row again (ignored) and commits on the record's shard
    const t = await offered(a, vaultId, c);
    expect((await shardSetOf(c.orgId)).filter((r) => r.shard_id === 2)).toHaveLength(1);
    expect((await incoming(c)).map((x) => x.transfer_id)).toEqual([t.transfer_id]);
    const accepted = await call("POST", `/partner/vault/transfers/${t.transfer_id}/accept`, { key: c.key });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect((await book(c)).data.map((r) => r.vault_id)).toContain(vaultId);
  });

  it("the book merges records on two shards, newest first, with the summed total", async () => {
    const [a, b] = await Promise.all([partyOn(1, "Dealer on one"), partyOn(2, "Bank on two")]);
    const own = await vaulted(b); // on shard 2, b's own
    const theirs = await vaulted(a); // on shard 1
    const t = await offered(a, theirs.vaultId, b);
    expect((await call("POST", `/partner/vault/transfers/${t.transfer_id}/accept`, { key: b.key })).status).toBe(200);
    const all = await call("GET", "/partner/vault?role=controller&limit=10", { key: b.key });
    expect(all.status).toBe(200);
    const ids = all.body.data.map((r: Record<string, any>) => r.vault_id);
    expect(ids).toEqual([theirs.vaultId, own.vaultId]);
    const page2 = await call("GET", "/partner/vault?role=controller&limit=1&page=2", { key: b.key });
    expect(page2.status).toBe(200);
    expect(page2.body.data.map((r: Record<string, any>) => r.vault_id)).toEqual([own.vaultId]);
    expect(page2.body.meta.total).toBe(2);
  });
});
