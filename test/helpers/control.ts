import { expect } from "vitest";
import { ALL_SCOPES, call, newTenant } from "./api";
import { completedEnvelope, vaultRecord } from "./vault";

/** Every scope a party of control needs (docs/control.md). */
export const CONTROL_SCOPES = [...ALL_SCOPES, "vault:control"];

/** An organization with a key of every scope, vault:control included. */
export const party = (name = "Lender") => newTenant({ scopes: CONTROL_SCOPES, name });
export type Party = Awaited<ReturnType<typeof party>>;

/** A vaulted envelope of `owner` (its originator and first controller), with its vault record. */
export async function vaulted(owner: Party) {
  const e = await completedEnvelope(owner.key);
  const res = await call("POST", `/partner/envelopes/${e.envelope_id}/vault-in-signed`, { key: owner.key, body: {} });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const record = (await vaultRecord(e.envelope_id))!;
  return { e, vaultId: record.id as string, record, vaultIn: res.body.data };
}

/** An offer of control that must succeed (201): the pending transfer. */
export async function offered(from: Party, vaultId: string, to: Party, kind: "assignment" | "pledge" = "assignment") {
  const res = await call("POST", `/partner/vault/${vaultId}/transfers`, { key: from.key, body: { kind, to_org_id: to.orgId } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as Record<string, any> & { transfer_id: string };
}

/** Control moves from `from` to `to`: offered and accepted. */
export async function transferred(from: Party, vaultId: string, to: Party, kind: "assignment" | "pledge" = "assignment") {
  const t = await offered(from, vaultId, to, kind);
  const res = await call("POST", `/partner/vault/transfers/${t.transfer_id}/accept`, { key: to.key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return t;
}
