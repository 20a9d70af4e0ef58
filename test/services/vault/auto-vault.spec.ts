import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { onShardOf, systemContext } from "../../../src/lib/context";
import { autoVaultIfConsented } from "../../../src/services/vault/auto-vault";
import { call, newTenant, operator } from "../../helpers/api";
import { completedEnvelope, paperEnvelope, vaultRecord } from "../../helpers/vault";
import { shardDbOf } from "../../helpers/shards";

/** A job's context on the shard of the envelope it acts on. */
const ctx = (envelopeId: string) => onShardOf(systemContext(env, () => {}), envelopeId);

async function tokenFor(orgId: string, role: "admin" | "custodian" | "member") {
  const user = await operator("POST", `/orgs/${orgId}/users`, { email: `${role}-${crypto.randomUUID()}@example.com`, name: role, role });
  const token = await operator("POST", `/users/${user.body.data.user_id}/access-tokens`, { org_id: orgId });
  return { userId: user.body.data.user_id as string, token: token.body.data.access_token as string };
}

const consent = (token: string, envelopeId: string, body: unknown) => call("POST", `/envelopes/${envelopeId}/auto-vault-consent`, { bearer: token, body });

describe("auto-vault consent and the completion hook", () => {
  it("vaults an already completed envelope at once when a custodian consents, on that user's behalf", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    const custodian = await tokenFor(t.orgId, "custodian");
    const res = await consent(custodian.token, e.envelope_id, { auto_vault_enabled: true, acknowledge_authoritative_copy: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      envelope_id: e.envelope_id,
      auto_vault_enabled: true,
      vault_in_terms_accepted_by: custodian.userId,
      status: "vaulted",
      vaulted: true,
    });
    expect(res.body.data.vault_in_terms_accepted_at).toMatch(/\.\d{3}Z$/);
    expect(await vaultRecord(e.envelope_id)).toMatchObject({ actor_type: "system", actor_id: null, on_behalf_of: custodian.userId });
    const audit = await shardDbOf(e.envelope_id).prepare("SELECT action, actor_type, actor_id, data FROM audit_log WHERE chain_id = ? ORDER BY seq").bind(e.envelope_id).all<{ action: string; actor_type: string; actor_id: string | null; data: string }>();
    expect(audit.results.map((a) => [a.action, a.actor_type])).toEqual([
      ["envelope.created", "api_key"],
      ["envelope.auto_vault_consent", "user"],
      ["envelope.vault", "system"],
    ]);
    expect(JSON.parse(audit.results[2]!.data)).toMatchObject({ on_behalf_of: custodian.userId });
    const verify = await call("GET", `/envelopes/${e.envelope_id}/audit/verify`, { bearer: (await tokenFor(t.orgId, "admin")).token });
    expect(verify.body.data.verified).toBe(true);
  });

  it("records consent before completion; the hook then vaults when the signing flow completes the envelope", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    // Seeded as completed (signing does not exist yet); step back to `sent` to consent before completion.
    await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = 'sent' WHERE id = ?").bind(e.envelope_id).run();
    const admin = await tokenFor(t.orgId, "admin");
    const res = await consent(admin.token, e.envelope_id, { auto_vault_enabled: true, acknowledge_authoritative_copy: true });
    expect(res.body.data).toMatchObject({ auto_vault_enabled: true, status: "sent", vaulted: false });
    expect(await autoVaultIfConsented(ctx(e.envelope_id), { envelopeId: e.envelope_id })).toEqual({ vaulted: false, reason: "status sent" });

    await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = 'completed' WHERE id = ?").bind(e.envelope_id).run();
    expect(await autoVaultIfConsented(ctx(e.envelope_id), { envelopeId: e.envelope_id })).toEqual({ vaulted: true });
    const status = await call("GET", `/partner/envelopes/${e.envelope_id}/status`, { key: t.key });
    expect(status.body.data).toMatchObject({ status: "vaulted", vaulted: true, compliant: true });
    // Calling it again is harmless.
    expect(await autoVaultIfConsented(ctx(e.envelope_id), { envelopeId: e.envelope_id })).toEqual({ vaulted: true });
  });

  it("leaves a completed envelope alone without consent, after consent is withdrawn, and for paper envelopes", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    expect(await autoVaultIfConsented(ctx(e.envelope_id), { envelopeId: e.envelope_id })).toEqual({ vaulted: false, reason: "no auto-vault consent" });

    await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = 'viewed' WHERE id = ?").bind(e.envelope_id).run();
    const admin = await tokenFor(t.orgId, "admin");
    await consent(admin.token, e.envelope_id, { auto_vault_enabled: true, acknowledge_authoritative_copy: true });
    const off = await consent(admin.token, e.envelope_id, { auto_vault_enabled: false, acknowledge_authoritative_copy: false });
    expect(off.body.data).toMatchObject({ auto_vault_enabled: false, vault_in_terms_accepted_at: null, vault_in_terms_accepted_by: null });
    await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = 'completed' WHERE id = ?").bind(e.envelope_id).run();
    expect(await autoVaultIfConsented(ctx(e.envelope_id), { envelopeId: e.envelope_id })).toEqual({ vaulted: false, reason: "no auto-vault consent" });
    expect((await call("GET", `/partner/envelopes/${e.envelope_id}`, { key: t.key })).body.data.status).toBe("completed");

    const paper = await paperEnvelope(t.key);
    await consent(admin.token, paper.envelope_id, { auto_vault_enabled: true, acknowledge_authoritative_copy: true });
    await shardDbOf(paper.envelope_id).prepare("UPDATE envelopes SET status = 'completed' WHERE id = ?").bind(paper.envelope_id).run();
    expect((await autoVaultIfConsented(ctx(paper.envelope_id), { envelopeId: paper.envelope_id })).vaulted).toBe(false);
  });

  it("requires the acknowledgement to enable (422), the admin or custodian role (403), and an open envelope (422)", async () => {
    const t = await newTenant();
    const e = await completedEnvelope(t.key);
    const admin = await tokenFor(t.orgId, "admin");
    const unacknowledged = await consent(admin.token, e.envelope_id, { auto_vault_enabled: true, acknowledge_authoritative_copy: false });
    expect(unacknowledged.status).toBe(422);
    expect(unacknowledged.body.details[0].path).toEqual(["acknowledge_authoritative_copy"]);
    expect((await consent(admin.token, e.envelope_id, { auto_vault_enabled: true })).status).toBe(422);

    const member = await tokenFor(t.orgId, "member");
    const denied = await consent(member.token, e.envelope_id, { auto_vault_enabled: true, acknowledge_authoritative_copy: true });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatch(/admin or custodian/);
    expect((await call("POST", `/envelopes/${e.envelope_id}/auto-vault-consent`, { key: t.key, body: {} })).status).toBe(401);

    await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: t.key, body: {} });
    const late = await consent(admin.token, e.envelope_id, { auto_vault_enabled: true, acknowledge_authoritative_copy: true });
    expect(late.status).toBe(422);
    expect(late.body.error).toBe("Cannot set auto-vault consent on an envelope with status vaulted");

    const other = await newTenant();
    const foreign = await tokenFor(other.orgId, "admin");
    expect((await consent(foreign.token, e.envelope_id, { auto_vault_enabled: true, acknowledge_authoritative_copy: true })).status).toBe(404);
  });
});
