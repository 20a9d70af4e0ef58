import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { AUTO_VAULT_GRACE_MS, AUTO_VAULT_PER_RUN, autoVaultSweep } from "../../src/jobs/auto-vault-sweep";
import { call, newTenant, operator } from "../helpers/api";
import { jobContextOf, jobContextOnOrg } from "../helpers/context";
import { completedEnvelope, paperEnvelope, vaultRecord } from "../helpers/vault";
import { shardDbOf } from "../helpers/shards";
import { newShardId, shardOf } from "../../src/lib/shards";

/** The minute's cron, as Cloudflare runs it. */
async function runCron(at: Date) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: at.getTime(), cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

/** A minute at which every envelope changed by this test is past the sweep's grace period. */
const later = () => new Date(Date.now() + AUTO_VAULT_GRACE_MS + 60_000);

async function custodianToken(orgId: string) {
  const user = await operator("POST", `/orgs/${orgId}/users`, { email: `custodian-${crypto.randomUUID()}@example.com`, name: "Custodian", role: "custodian" });
  const token = await operator("POST", `/users/${user.body.data.user_id}/access-tokens`, { org_id: orgId });
  return { userId: user.body.data.user_id as string, token: token.body.data.access_token as string };
}

/**
 * An e-sign envelope the custodian consented to auto-vault while it was out for signature, then
 * `completed` with its signed document stored, but whose completion-time auto-vault never ran (the
 * request died after its batch committed): the state the sweep exists for.
 */
async function completedWhileAutoVaultDropped(t: { key: string; orgId: string }, custodian: { token: string }) {
  const e = await completedEnvelope(t.key);
  await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = 'sent' WHERE id = ?").bind(e.envelope_id).run();
  const consent = await call("POST", `/envelopes/${e.envelope_id}/auto-vault-consent`, {
    bearer: custodian.token,
    body: { auto_vault_enabled: true, acknowledge_authoritative_copy: true },
  });
  expect(consent.body.data).toMatchObject({ auto_vault_enabled: true, status: "sent" });
  await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = 'completed' WHERE id = ?").bind(e.envelope_id).run();
  return e;
}

const statusOf = async (key: string, id: string) => (await call("GET", `/partner/envelopes/${id}/status`, { key })).body.data.status as string;
const vaultCount = (id: string) => shardDbOf(id).prepare("SELECT COUNT(*) AS n FROM vault_records WHERE envelope_id = ?").bind(id).first<number>("n");
const vaultEntries = (id: string) =>
  shardDbOf(id).prepare("SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action = 'envelope.vault'").bind(id).first<number>("n");

async function requestPayment(envelopeId: string, orgId: string, status: string) {
  const at = new Date().toISOString();
  await shardDbOf(envelopeId).prepare(
    `INSERT INTO payments (id, envelope_id, org_id, amount_cents, currency, payer_email, destination_account, application_fee_cents, platform_fee_bps, status, created_at, updated_at)
     VALUES (?, ?, ?, 150000, 'usd', 'ann@example.com', 'acct_1DealerStandIn', 0, 0, ?, ?, ?)`,
  )
    .bind(newShardId("payment", shardOf(envelopeId)), envelopeId, orgId, status, at, at)
    .run();
}

describe("auto-vault sweep (cron): completed, consented, paid envelopes the completion did not vault", () => {
  it("vaults an envelope whose auto-vault was dropped, on the consenting custodian's behalf, and leaves every other envelope alone", async () => {
    const t = await newTenant();
    const custodian = await custodianToken(t.orgId);
    const dropped = await completedWhileAutoVaultDropped(t, custodian);
    const notConsented = await completedEnvelope(t.key);
    const unpaid = await completedWhileAutoVaultDropped(t, custodian);
    await requestPayment(unpaid.envelope_id, t.orgId, "requires_payment");
    const paid = await completedWhileAutoVaultDropped(t, custodian);
    await requestPayment(paid.envelope_id, t.orgId, "paid");
    const paper = await paperEnvelope(t.key);
    await call("POST", `/envelopes/${paper.envelope_id}/auto-vault-consent`, { bearer: custodian.token, body: { auto_vault_enabled: true, acknowledge_authoritative_copy: true } });
    await shardDbOf(paper.envelope_id).prepare("UPDATE envelopes SET status = 'completed' WHERE id = ?").bind(paper.envelope_id).run();

    // Within the grace period the completing request may still be vaulting: the sweep waits.
    await runCron(new Date());
    expect(await statusOf(t.key, dropped.envelope_id)).toBe("completed");

    await runCron(later());
    expect(await statusOf(t.key, dropped.envelope_id)).toBe("vaulted");
    expect(await vaultRecord(dropped.envelope_id)).toMatchObject({ source: "signed", document_hash: dropped.hash, actor_type: "system", on_behalf_of: custodian.userId });
    expect(await statusOf(t.key, paid.envelope_id)).toBe("vaulted");
    const stored = await shardDbOf(dropped.envelope_id).prepare("SELECT COUNT(*) AS n FROM events WHERE envelope_id = ? AND type = 'vault.stored'").bind(dropped.envelope_id).first<number>("n");
    expect(stored).toBe(1);

    expect(await statusOf(t.key, notConsented.envelope_id)).toBe("completed");
    expect(await statusOf(t.key, unpaid.envelope_id)).toBe("completed");
    expect(await vaultCount(unpaid.envelope_id)).toBe(0);
    expect(await statusOf(t.key, paper.envelope_id)).toBe("completed");
    expect(await vaultCount(paper.envelope_id)).toBe(0);
  });

  it("running twice vaults once: one vault record, one vault entry on the chain, one vault.stored event", async () => {
    const t = await newTenant();
    const custodian = await custodianToken(t.orgId);
    const e = await completedWhileAutoVaultDropped(t, custodian);
    await runCron(later());
    await runCron(later());
    expect(await statusOf(t.key, e.envelope_id)).toBe("vaulted");
    expect(await vaultCount(e.envelope_id)).toBe(1);
    expect(await vaultEntries(e.envelope_id)).toBe(1);
    const stored = await shardDbOf(e.envelope_id).prepare("SELECT COUNT(*) AS n FROM events WHERE envelope_id = ? AND type = 'vault.stored'").bind(e.envelope_id).first<number>("n");
    expect(stored).toBe(1);
    const verify = await call("GET", `/partner/envelopes/${e.envelope_id}/compliance`, { key: t.key });
    expect(JSON.stringify(verify.body)).not.toContain("does not verify");
  });

  it("a partner's vault-in racing the sweep on the same envelope leaves exactly one authoritative copy, and both succeed", async () => {
    const t = await newTenant();
    const custodian = await custodianToken(t.orgId);
    const e = await completedWhileAutoVaultDropped(t, custodian);
    const [partner] = await Promise.all([
      call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} }),
      autoVaultSweep(jobContextOf(e.envelope_id), later()),
    ]);
    expect(partner.status).toBe(200);
    expect(partner.body.data.status).toBe("vaulted");
    expect(await vaultCount(e.envelope_id)).toBe(1);
    expect(await vaultEntries(e.envelope_id)).toBe(1);
  });

  it(`vaults at most ${AUTO_VAULT_PER_RUN} envelopes a minute and the rest on the following minutes`, async () => {
    const t = await newTenant();
    const custodian = await custodianToken(t.orgId);
    const backlog: string[] = [];
    for (let i = 0; i < AUTO_VAULT_PER_RUN + 2; i++) backlog.push((await completedWhileAutoVaultDropped(t, custodian)).envelope_id);
    const vaulted = async () => (await Promise.all(backlog.map(vaultCount))).reduce<number>((sum, n) => sum + (n ?? 0), 0);

    const sweep = await jobContextOnOrg(t.orgId);
    const first = await autoVaultSweep(sweep, later());
    expect(first.vaulted.length).toBeLessThanOrEqual(AUTO_VAULT_PER_RUN);
    // Earlier tests' envelopes in this file are vaulted already: the backlog is all that is due.
    expect(await vaulted()).toBe(AUTO_VAULT_PER_RUN);
    await autoVaultSweep(sweep, later());
    await autoVaultSweep(sweep, later());
    expect(await vaulted()).toBe(AUTO_VAULT_PER_RUN + 2);
  });
});
