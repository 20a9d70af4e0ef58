import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { expireTransfers } from "../../src/jobs/expire-transfers";
import { expireTransfer } from "../../src/services/control/expire-transfer";
import { getTransfer } from "../../src/services/control/repository";
import { ALL_SCOPES, call, newTenant } from "../helpers/api";
import { jobContextOf } from "../helpers/context";
import { completedEnvelope, vaultRecord } from "../helpers/vault";
import { shardDbOf } from "../helpers/shards";

const party = () => newTenant({ scopes: [...ALL_SCOPES, "vault:control"] });

/** A vaulted record of `from` with a transfer pending to `to`, expiring at `expiresAt`. */
async function pendingTransfer(from: { key: string }, to: { orgId: string }, expiresAt: string) {
  const e = await completedEnvelope(from.key);
  expect((await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: from.key, body: {} })).status).toBe(200);
  const vaultId = (await vaultRecord(e.envelope_id))!.id as string;
  const t = await call("POST", `/partner/vault/${vaultId}/transfers`, { key: from.key, body: { kind: "pledge", to_org_id: to.orgId } });
  expect(t.status).toBe(201);
  await shardDbOf(t.body.data.transfer_id).prepare("UPDATE vault_transfers SET expires_at = ? WHERE id = ?").bind(expiresAt, t.body.data.transfer_id).run();
  return { envelopeId: e.envelope_id, vaultId, transferId: t.body.data.transfer_id as string };
}

const status = async (id: string) => (await getTransfer(shardDbOf(id), id))!.status;

describe("expire-transfers (cron, every minute)", () => {
  it("expires pending transfers past expires_at: vault.transfer_expired on the chain by the service, the event to both organizations; leaves the rest", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const now = new Date();
    const due = await pendingTransfer(a, b, new Date(now.getTime() - 60_000).toISOString());
    const notDue = await pendingTransfer(a, b, new Date(now.getTime() + 60_000).toISOString());

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: now.getTime(), cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);

    expect(await status(due.transferId)).toBe("expired");
    expect(await status(notDue.transferId)).toBe("pending");
    const entry = await shardDbOf(due.envelopeId).prepare("SELECT action, actor_type, actor_id, data FROM audit_log WHERE chain_id = ? ORDER BY seq DESC LIMIT 1").bind(due.envelopeId).first<Record<string, any>>();
    expect(entry).toMatchObject({ action: "vault.transfer_expired", actor_type: "system", actor_id: null });
    const data = JSON.parse(entry!.data);
    expect(data).toMatchObject({ transfer_id: due.transferId, kind: "pledge", acting_org_id: null, actor_key_id: null, controller_org_id: a.orgId });
    expect(data.control_signature).toBeUndefined();
    const events = await shardDbOf(due.envelopeId).prepare("SELECT org_id FROM events WHERE envelope_id = ? AND type = 'vault.transfer_expired' ORDER BY org_id").bind(due.envelopeId).all();
    expect(events.results.map((r) => r.org_id)).toEqual([a.orgId, b.orgId].sort());
    // control did not move; the record takes a new offer
    expect(await vaultRecord(due.envelopeId)).toMatchObject({ controller_org_id: a.orgId, pledgor_org_id: null });
    expect((await call("POST", `/partner/vault/${due.vaultId}/transfers`, { key: a.key, body: { kind: "assignment", to_org_id: b.orgId } })).status).toBe(201);
  });

  it("expires as of the run's time, and is idempotent: a second run expires nothing", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const soon = await pendingTransfer(a, b, new Date(Date.now() + 3_600_000).toISOString());
    const job = jobContextOf(soon.vaultId);
    expect((await expireTransfers(job, new Date())).expired).toBe(0);
    expect(await status(soon.transferId)).toBe("pending");
    const later = new Date(Date.now() + 2 * 3_600_000);
    expect((await expireTransfers(job, later)).expired).toBeGreaterThanOrEqual(1);
    expect(await status(soon.transferId)).toBe("expired");
    const entries = async () => (await shardDbOf(soon.envelopeId).prepare("SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action = 'vault.transfer_expired'").bind(soon.envelopeId).first("n")) as number;
    expect(await entries()).toBe(1);
    await expireTransfers(job, later);
    expect(await entries()).toBe(1);
  });

  it("leaves a transfer answered at the same moment with its answer", async () => {
    const [a, b] = await Promise.all([party(), party()]);
    const t = await pendingTransfer(a, b, new Date(Date.now() + 60_000).toISOString());
    const stale = (await getTransfer(shardDbOf(t.transferId), t.transferId))!;
    expect((await call("POST", `/partner/vault/transfers/${t.transferId}/accept`, { key: b.key })).status).toBe(200);
    // the job read the transfer as pending, then the receiver accepted it
    expect(await expireTransfer(jobContextOf(t.transferId), stale, new Date(Date.now() + 120_000))).toBeNull();
    expect(await status(t.transferId)).toBe("accepted");
    expect(await vaultRecord(t.envelopeId)).toMatchObject({ controller_org_id: b.orgId, pledgor_org_id: a.orgId });
  });
});
