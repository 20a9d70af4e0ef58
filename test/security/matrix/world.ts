import { env } from "cloudflare:test";
import { exportJWK, generateKeyPair } from "jose";
import { ALL_SCOPES, call, createEnvelope, newKey, newTenant, OPERATOR_TOKEN } from "../../helpers/api";
import { memberToken } from "../../helpers/templates";
import { completedEnvelope, signedSigner, vaultRecord } from "../../helpers/vault";
import { createEndpoint, receiverUrl } from "../../helpers/webhooks";
import { newShardId, shardOf } from "../../../src/lib/shards";
import { shardDbOf } from "../../helpers/shards";

/**
 * One organization with one resource of every kind a path can name, and its credentials. The matrix
 * builds two: `owner` (whose ids the other organization asks for) and `self` (whose own calls must get
 * past the access check).
 */
export type Org = {
  orgId: string;
  key: string;
  admin: string;
  member: string;
  /** Path parameter (or body field) name -> an id of that kind in this organization. */
  ids: Record<string, string>;
};

export async function org(name: string): Promise<Org> {
  // its key holds vault:control too, so another organization's control ids reach the lookup (404), not the scope check
  const t = await newTenant({ name, scopes: [...ALL_SCOPES, "vault:control"] });
  const [admin, member] = await Promise.all([memberToken(t.orgId, "admin"), memberToken(t.orgId, "member")]);
  // a vaulted envelope: every read of it (the vault's URLs and certificate included) can be served
  const envelope = await completedEnvelope(t.key);
  // an envelope still being prepared: what the editor (builder session) opens
  const pending = await createEnvelope(t.key);
  const vaulted = await call("POST", `/partner/envelopes/${envelope.envelope_id}/vault-in-signed`, { key: t.key, body: {} });
  if (vaulted.status !== 200) throw new Error(`vault: ${vaulted.status} ${JSON.stringify(vaulted.body)}`);
  // control of the authoritative copy (docs/control.md): the vaulted envelope's record, and a transfer this
  // organization offered to a counterparty and cancelled (so the record has none pending)
  const vaultId = (await vaultRecord(envelope.envelope_id))!.id as string;
  const control = await newKey(t.orgId, ["vault:control"]);
  const counterparty = await newTenant({ name: `${name} counterparty` });
  const offered = await call("POST", `/partner/vault/${vaultId}/transfers`, { key: control.key, body: { kind: "pledge", to_org_id: counterparty.orgId } });
  if (offered.status !== 201) throw new Error(`transfer: ${offered.status} ${JSON.stringify(offered.body)}`);
  const cancelled = await call("POST", `/partner/vault/transfers/${offered.body.data.transfer_id}/cancel`, { key: control.key });
  if (cancelled.status !== 200) throw new Error(`transfer cancel: ${cancelled.status} ${JSON.stringify(cancelled.body)}`);
  // a legal hold this organization placed on its record (docs/control.md "Legal holds"): the `{hold_id}` others ask for
  const hold = await call("POST", `/partner/vault/${vaultId}/holds`, { key: control.key, body: { reason: `${name} litigation` } });
  if (hold.status !== 201) throw new Error(`hold: ${hold.status} ${JSON.stringify(hold.body)}`);
  // a pool of that record offered to the counterparty and cancelled (docs/control.md "Pools"): the `{pool_id}` of the pool routes
  const pool = await call("POST", "/partner/vault/pools", { key: control.key, body: { kind: "assignment", to_org_id: counterparty.orgId, vault_ids: [vaultId] } });
  if (pool.status !== 202) throw new Error(`pool: ${pool.status} ${JSON.stringify(pool.body)}`);
  const poolCancelled = await call("POST", `/partner/vault/pools/${pool.body.data.pool_id}/cancel`, { key: control.key });
  if (poolCancelled.status !== 200) throw new Error(`pool cancel: ${poolCancelled.status} ${JSON.stringify(poolCancelled.body)}`);
  const template = await call("POST", "/templates", { bearer: admin, body: { name: `${name} template` } });
  if (template.status !== 201) throw new Error(`template: ${template.status} ${JSON.stringify(template.body)}`);
  const templateId: string = template.body.data.template_id;
  const pkg = await call("POST", "/document-packages", { bearer: admin, body: { name: `${name} package`, template_ids: [templateId] } });
  if (pkg.status !== 201) throw new Error(`package: ${pkg.status} ${JSON.stringify(pkg.body)}`);
  const batch = await call("POST", "/bulk-send", { bearer: admin, body: { name: `${name} batch`, document_source: "new" } });
  if (batch.status !== 201) throw new Error(`bulk batch: ${batch.status} ${JSON.stringify(batch.body)}`);
  // a signer of the vaulted envelope (corrections name one: `…/signers/{signer_id}`; the helper's envelope was completed without any)
  const signer = await signedSigner(envelope.envelope_id, t.orgId);
  // a file a signer attached (an attachment field of the vaulted envelope): GET …/attachments/{field_name}/signed-url
  const attachment = new TextEncoder().encode("%PDF-1.7\n% matrix attachment\n");
  const attachmentKey = `documents/${t.orgId}/${newShardId("document", shardOf(envelope.envelope_id))}-attachment.pdf`;
  await env.DOCS.put(attachmentKey, attachment);
  const attachmentSha = [...new Uint8Array(await crypto.subtle.digest("SHA-256", attachment))].map((b) => b.toString(16).padStart(2, "0")).join("");
  await shardDbOf(envelope.envelope_id).prepare(
    `INSERT INTO envelope_fields (envelope_id, seq, org_id, name, type, role, required, readonly, value, placement_mode, areas, created_at)
     VALUES (?, 900, ?, 'proof_of_income', 'attachment', 'buyer', 0, 0, ?, 'absolute', '[]', ?)`,
  )
    .bind(envelope.envelope_id, t.orgId, JSON.stringify({ attachment: { key: attachmentKey, sha256: attachmentSha, size: attachment.length, content_type: "application/pdf", filename: "stub.pdf", uploaded_at: new Date().toISOString() } }), new Date().toISOString())
    .run();
  const endpoint = await createEndpoint(admin, { url: receiverUrl("ok").url });
  const test = await call("POST", `/webhooks/endpoints/${endpoint.endpoint_id}/test`, { bearer: admin });
  if (test.status !== 200) throw new Error(`webhook test: ${test.status} ${JSON.stringify(test.body)}`);
  return {
    orgId: t.orgId,
    key: t.key,
    admin,
    member,
    ids: {
      envelope_id: envelope.envelope_id,
      customer_id: envelope.customer_id,
      pending_envelope_id: pending.envelope_id,
      template_id: templateId,
      package_id: pkg.body.data.package_id,
      endpoint_id: endpoint.endpoint_id,
      delivery_id: test.body.data.delivery_id,
      batch_id: batch.body.data.batch_id,
      vault_id: vaultId,
      transfer_id: offered.body.data.transfer_id,
      hold_id: hold.body.data.hold_id,
      pool_id: pool.body.data.pool_id,
      signer_id: signer.id,
      field_name: "proof_of_income",
    },
  };
}

export type World = { owner: Org; intruder: Org; self: Org; keyWithout: (scopes: string[]) => Promise<string>; keyWithOnly: (scope: string) => Promise<string> };

let world: Promise<World> | undefined;

/** Built once for the whole matrix. */
export function theWorld(): Promise<World> {
  world ??= (async () => {
    const [owner, intruder, self] = await Promise.all([org("Owner Bank"), org("Intruder Motors"), org("Self Credit Union")]);
    // a control key of the owner's, the `{kid}` another organization asks for (only the owner has one:
    // an organization with keys must sign its control actions, which the matrix's own calls do not)
    owner.ids.kid = await ownerControlKey(owner.orgId);
    const cache = new Map<string, Promise<string>>();
    const key = (orgId: string, scopes: string[]) => {
      const id = `${orgId} ${scopes.join(",")}`;
      if (!cache.has(id)) cache.set(id, newKey(orgId, scopes).then((k) => k.key));
      return cache.get(id)!;
    };
    return {
      owner,
      intruder,
      self,
      keyWithout: (scopes) => key(owner.orgId, ALL_SCOPES.filter((s) => !scopes.includes(s))),
      keyWithOnly: (scope) => key(self.orgId, [scope]),
    };
  })();
  return world;
}

export { OPERATOR_TOKEN };

/** Registers an Ed25519 control key for `orgId` (its first: unsigned) and answers its kid. */
async function ownerControlKey(orgId: string): Promise<string> {
  const { publicKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const res = await call("POST", "/partner/vault/control-keys", { key: (await newKey(orgId, ["vault:control"])).key, body: { jwk: await exportJWK(publicKey) } });
  if (res.status !== 201) throw new Error(`control key: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.kid as string;
}
