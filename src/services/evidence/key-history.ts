import { compactVerify, importJWK, calculateJwkThumbprint, decodeProtectedHeader, type JWK } from "jose";
import type { GlobalDb } from "../../lib/shards";
import { selectChainActionsOf } from "../audit/repository";
import { selectOrganizationNamesOf } from "../organizations/repository";
import type { KeyHistory } from "./build-bundle";

// An organization's control-key history as stored: the `control_key.added` / `control_key.deleted` /
// `control_key.recovered` entries of its own audit chain in the global database (services/control/
// add-control-key.ts, delete-control-key.ts, recover-control-keys.ts). Nothing else records it.

type KeyEntryRow = { id: string; seq: number; hash: string; action: string; actor_type: string; actor_id: string | null; ip: string | null; data: string; created_at: string };

export const KEY_ACTIONS = ["control_key.added", "control_key.deleted", "control_key.recovered"] as const;

/**
 * The key history of each organization, oldest first. An added key's public JWK is the entry's own
 * (`jwk`, recorded since bundle version 3) or, for older entries, the key as still registered; a key
 * deleted before entries recorded their JWK has none (its moves cannot be verified, and say so).
 */
export async function readKeyHistory(db: GlobalDb, orgIds: string[]): Promise<KeyHistory> {
  const organizations: KeyHistory["organizations"] = [];
  const ids = [...new Set(orgIds)].sort();
  if (ids.length === 0) return { organizations };
  // every organization's history, keys and name in one batch of three statements, however many organizations
  const [entries, keyRows, names] = await db.batch<unknown>([
    selectChainActionsOf(db, { chainIds: ids, actions: KEY_ACTIONS }),
    // SQL exception: the organizations' registered keys, read here rather than through control/repository.ts,
    // which sits above this folder (control -> vault -> evidence)
    db.prepare("SELECT org_id, kid, jwk FROM control_keys WHERE org_id IN (SELECT value FROM json_each(?))").bind(JSON.stringify(ids)),
    selectOrganizationNamesOf(db, ids),
  ]);
  const entriesOf = new Map<string, (KeyEntryRow & { chain_id: string })[]>();
  for (const row of entries!.results as (KeyEntryRow & { chain_id: string })[]) entriesOf.set(row.chain_id, [...(entriesOf.get(row.chain_id) ?? []), row]);
  const nameOf = new Map((names!.results as { id: string; name: string }[]).map((n) => [n.id, n.name]));
  for (const orgId of ids) {
    const results = entriesOf.get(orgId) ?? [];
    const registered = new Map(
      (keyRows!.results as { org_id: string; kid: string; jwk: string }[]).filter((k) => k.org_id === orgId).map((k) => [k.kid, JSON.parse(k.jwk) as Record<string, unknown>]),
    );
    organizations.push({
      org_id: orgId,
      name: nameOf.get(orgId) ?? null,
      events: results.map((row) => {
        const data = JSON.parse(row.data) as Record<string, any>;
        const action = row.action as KeyHistory["organizations"][number]["events"][number]["action"];
        return {
          action,
          at: row.created_at,
          ...(action === "control_key.recovered"
            ? { removed: Array.isArray(data.removed) ? (data.removed as string[]) : [] }
            : { kid: String(data.kid), alg: String(data.alg), control_signature: data.control_signature ?? null }),
          ...(action === "control_key.added" ? { jwk: (data.jwk as Record<string, unknown> | undefined) ?? registered.get(String(data.kid)) ?? null } : {}),
          actor: { type: row.actor_type, id: row.actor_id, ...(row.actor_type === "operator" ? { name: `operator${row.ip ? ` at ${row.ip}` : ""}` } : {}) },
          audit_entry: { id: row.id, seq: row.seq, hash: row.hash },
        };
      }),
    });
  }
  return { organizations };
}

/** The signed action of each control step (docs/control.md); an expiry is the service's own step. */
export const CONTROL_VERB: Record<string, string> = {
  "vault.transfer_requested": "transfer",
  "vault.control_transferred": "accept",
  "vault.transfer_rejected": "reject",
  "vault.transfer_cancelled": "cancel",
  "vault.pledge_released": "release_pledge",
  "vault.paid_off": "paid_off",
  "vault.paper_out": "paper_out",
};

type Entry = { seq: number; action: string; data: Record<string, any>; created_at: string };

/** The organization that acted in a control entry. */
export function actingOrgOf(entry: Entry): string | null {
  const verb = CONTROL_VERB[entry.action];
  if (!verb) return null;
  const d = entry.data;
  if (typeof d.acting_org_id === "string") return d.acting_org_id;
  return (verb === "accept" || verb === "reject" ? d.to_org_id : d.from_org_id) ?? null;
}

/**
 * The rule verify.mjs applies (services/evidence/verify.mjs, check 5), for compliance check 5: every control
 * move by an organization that held a control key at the time carries a Control-Signature by one of
 * the keys it held then, made for this record, action and transfer (and `control_seq`, when signed).
 * Returns a sentence per move that does not, and the organization's operator recoveries before moves.
 */
export async function unsignedControlMoves(entries: Entry[], history: KeyHistory, vaultId: string): Promise<{ unsigned: string[]; afterRecovery: string[] }> {
  const unsigned: string[] = [];
  const afterRecovery: string[] = [];
  const control = entries.filter((e) => e.action in CONTROL_VERB || e.action === "vault.transfer_expired");
  for (let i = 0; i < control.length; i++) {
    const e = control[i]!;
    const verb = CONTROL_VERB[e.action];
    const acting = actingOrgOf(e);
    if (!verb || !acting) continue;
    const events = history.organizations.find((o) => o.org_id === acting)?.events ?? [];
    const held = new Map<string, (typeof events)[number]>();
    let recovery: (typeof events)[number] | null = null;
    for (const ev of events) {
      if (ev.at > e.created_at) continue;
      if (ev.action === "control_key.added") held.set(ev.kid!, ev);
      else if (ev.action === "control_key.deleted") held.delete(ev.kid!);
      else {
        held.clear();
        recovery = ev;
      }
    }
    const signature = e.data.control_signature as { jws?: string } | undefined;
    const where = `entry ${e.seq} (${e.action}) by ${acting}`;
    if (held.size === 0) {
      if (recovery && !signature) afterRecovery.push(`${where}: unsigned after the operator removed its control keys at ${recovery.at}`);
      continue;
    }
    if (!signature?.jws) {
      unsigned.push(`${where}: no Control-Signature, though it held control key(s) ${[...held.keys()].join(", ")}`);
      continue;
    }
    try {
      const kid = decodeProtectedHeader(signature.jws).kid;
      const key = kid ? held.get(kid) : undefined;
      if (!key?.jwk || (await calculateJwkThumbprint(key.jwk as JWK, "sha256")) !== kid) throw new Error("not a key it held");
      const { payload } = await compactVerify(signature.jws, await importJWK(key.jwk as JWK, key.alg));
      const p = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
      const transferId = e.data.transfer_id ?? null;
      if (typeof e.data.pool_id === "string") {
        // a record moved by a pool: the receiver signed its acceptance of the pool (docs/control.md "Pools")
        if (p.action !== "pool_accept" || p.pool_id !== e.data.pool_id || p.manifest_sha256 !== e.data.manifest_sha256) throw new Error("made for another pool or action");
        continue;
      }
      if (p.vault_id !== vaultId || p.action !== verb) throw new Error("made for another record or action");
      if ((verb === "accept" || verb === "reject" || verb === "cancel" || p.transfer_id !== undefined) && p.transfer_id !== transferId) throw new Error("made for another transfer");
      if (p.control_seq !== undefined && p.control_seq !== i) throw new Error("made for another control_seq");
    } catch (err) {
      unsigned.push(`${where}: its Control-Signature is not valid (${err instanceof Error ? err.message : String(err)})`);
    }
  }
  return { unsigned, afterRecovery };
}
