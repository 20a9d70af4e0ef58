import { ALL_SCOPES, call, createEnvelope, newKey, newTenant, OPERATOR_TOKEN } from "../../helpers/api";
import { memberToken } from "../../helpers/templates";
import { completedEnvelope } from "../../helpers/vault";
import { createEndpoint, receiverUrl } from "../../helpers/webhooks";

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
  const t = await newTenant({ name });
  const [admin, member] = await Promise.all([memberToken(t.orgId, "admin"), memberToken(t.orgId, "member")]);
  // a vaulted envelope: every read of it (the vault's URLs and certificate included) can be served
  const envelope = await completedEnvelope(t.key);
  // an envelope still being prepared: what the editor (builder session) opens
  const pending = await createEnvelope(t.key);
  const vaulted = await call("POST", `/partner/envelopes/${envelope.envelope_id}/vault-in-signed`, { key: t.key, body: {} });
  if (vaulted.status !== 200) throw new Error(`vault: ${vaulted.status} ${JSON.stringify(vaulted.body)}`);
  const template = await call("POST", "/templates", { bearer: admin, body: { name: `${name} template` } });
  if (template.status !== 201) throw new Error(`template: ${template.status} ${JSON.stringify(template.body)}`);
  const templateId: string = template.body.data.template_id;
  const pkg = await call("POST", "/document-packages", { bearer: admin, body: { name: `${name} package`, template_ids: [templateId] } });
  if (pkg.status !== 201) throw new Error(`package: ${pkg.status} ${JSON.stringify(pkg.body)}`);
  const batch = await call("POST", "/bulk-send", { bearer: admin, body: { name: `${name} batch`, document_source: "new" } });
  if (batch.status !== 201) throw new Error(`bulk batch: ${batch.status} ${JSON.stringify(batch.body)}`);
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
    },
  };
}

export type World = { owner: Org; intruder: Org; self: Org; keyWithout: (scopes: string[]) => Promise<string>; keyWithOnly: (scope: string) => Promise<string> };

let world: Promise<World> | undefined;

/** Built once for the whole matrix. */
export function theWorld(): Promise<World> {
  world ??= (async () => {
    const [owner, intruder, self] = await Promise.all([org("Owner Bank"), org("Intruder Motors"), org("Self Credit Union")]);
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
