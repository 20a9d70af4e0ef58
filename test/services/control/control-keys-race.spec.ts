import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { addControlKey } from "../../../src/services/control/add-control-key";
import { deleteControlKey } from "../../../src/services/control/delete-control-key";
import { call, refusal } from "../../helpers/api";
import { party } from "../../helpers/control";
import { controlSignature, keySignature, makeControlKey, registerControlKey } from "../../helpers/control-keys";
import { racedDb } from "../../helpers/raced-db";
import type { GlobalDb } from "../../../src/lib/shards";
import { orgContext } from "../../helpers/context";

const kids = async (apiKey: string) => ((await call("GET", "/partner/vault/control-keys", { key: apiKey })).body.data as { kid: string }[]).map((k) => k.kid);
const entries = async (orgId: string, action: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM audit_log WHERE chain_id = ? AND action = ?").bind(orgId, action).first<{ n: number }>())!.n;


describe("control keys under a race between the verb's read and its write", () => {
  it("an unsigned first key loses to a first key registered meanwhile: 409, nothing of it written", async () => {
    const t = await party();
    const winner = await makeControlKey("ES256");
    const loser = await makeControlKey("EdDSA");
    const ctx = { ...orgContext(t.orgId), global: racedDb(env.DB, () => registerControlKey(t.key, winner)) as GlobalDb };
    const err = await refusal(addControlKey(ctx, { jwk: loser.jwk as Record<string, unknown>, signature: undefined }));
    expect([err.status, err.code]).toEqual([409, "control_keys_changed"]);
    expect(await kids(t.key)).toEqual([winner.kid]);
    expect(await entries(t.orgId, "control_key.added")).toBe(1);
  });

  it("a signed addition or deletion whose signing key is deleted meanwhile is refused (409), nothing written", async () => {
    const t = await party();
    const a = await makeControlKey("ES256");
    const b = await makeControlKey("EdDSA");
    expect((await registerControlKey(t.key, a)).status).toBe(201);
    expect((await registerControlKey(t.key, b, a)).status).toBe(201);
    const deleteA = async () =>
      call("DELETE", `/partner/vault/control-keys/${a.kid}`, { key: t.key, headers: { "Control-Signature": await keySignature(b, { action: "delete_key", kid: a.kid }) } });

    const c = await makeControlKey("EdDSA");
    const added = addControlKey(
      { ...orgContext(t.orgId), global: racedDb(env.DB, deleteA) as GlobalDb },
      { jwk: c.jwk as Record<string, unknown>, signature: await keySignature(a, { action: "add_key", kid: c.kid }) },
    );
    expect((await refusal(added)).code).toBe("control_keys_changed");
    expect(await kids(t.key)).toEqual([b.kid]);

    // b deletes itself, signed by a key (a, re-added) that the competitor deletes first
    expect((await registerControlKey(t.key, a, b)).status).toBe(201);
    const deleted = deleteControlKey(
      { ...orgContext(t.orgId), global: racedDb(env.DB, deleteA) as GlobalDb },
      { kid: b.kid, signature: await keySignature(a, { action: "delete_key", kid: b.kid }) },
    );
    expect((await refusal(deleted)).code).toBe("control_keys_changed");
    expect(await kids(t.key)).toEqual([b.kid]);
    expect(await entries(t.orgId, "control_key.deleted")).toBe(2);
  });
});
